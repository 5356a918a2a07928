/**
 * The built console under test: reuses out/renderer when it is newer than every renderer and
 * common source file, otherwise runs `electron-vite build` once.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository root. */
export const REPO = fileURLToPath(new URL('../../..', import.meta.url));
/** The built console directory served by `serve --console-dir`. */
export const CONSOLE_DIR = join(REPO, 'out', 'renderer');

function newest(dir: string): number {
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs);
  }
  return latest;
}

/** Ensures out/renderer reflects the current sources. */
export function ensureConsoleBuilt(): void {
  const index = join(CONSOLE_DIR, 'index.html');
  const sources = Math.max(newest(join(REPO, 'renderer')), newest(join(REPO, 'common')));
  if (existsSync(index) && statSync(index).mtimeMs > sources) return;
  const r = spawnSync(process.execPath, [join(REPO, 'node_modules/electron-vite/bin/electron-vite.js'), 'build'], { cwd: REPO, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`electron-vite build failed:\n${r.stdout}\n${r.stderr}`);
}
