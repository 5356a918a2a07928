/**
 * What the desktop tests need to run the real app: the Electron binary (never downloaded from
 * here), a display (the session's, or an Xvfb started for the tests when the `Xvfb` command
 * exists) and SQLite's binding for Electron's ABI, prepared exactly as `npm start` prepares it
 * (scripts/sqlite-binding.mjs). Otherwise the reason the tests skip.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { prepareSqliteBinding } from '../../scripts/sqlite-binding.mjs';

/** A runnable desktop: the Electron binary and the environment that gives it a display. */
export interface DesktopRuntime {
  readonly bin: string;
  readonly env: NodeJS.ProcessEnv;
  /** Stops the Xvfb started for the tests, if any. */
  stop(): void;
}

/** The Electron executable, or why there is none. Never triggers the package's download. */
function electronBinary(): { bin: string } | { reason: string } {
  let pkgDir: string;
  try {
    pkgDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return { reason: 'the electron package is not installed' };
  }
  const pathFile = join(pkgDir, 'path.txt');
  if (!existsSync(pathFile))
    return {
      reason: `the Electron binary is absent (${pathFile} missing; run node node_modules/electron/install.js with network)`,
    };
  const name = readFileSync(pathFile, 'utf8').trim();
  const bin = process.env.ELECTRON_OVERRIDE_DIST_PATH
    ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH, name)
    : join(pkgDir, 'dist', name);
  if (!existsSync(bin)) return { reason: `the Electron binary is absent (${bin} missing)` };
  return { bin };
}

/** A display for the app: the session's, or a private Xvfb. */
async function display(): Promise<
  { env: NodeJS.ProcessEnv; xvfb: ChildProcess | null } | { reason: string }
> {
  if (process.platform !== 'linux' || process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
    return { env: { ...process.env }, xvfb: null };
  if (spawnSync('sh', ['-c', 'command -v Xvfb'], { encoding: 'utf8' }).status !== 0)
    return {
      reason:
        'there is no display (DISPLAY and WAYLAND_DISPLAY unset, and no Xvfb: apt-get install xvfb)',
    };
  // -displayfd: Xvfb picks a free display number and writes it once it accepts connections.
  const xvfb = spawn(
    'Xvfb',
    ['-displayfd', '1', '-screen', '0', '1280x800x24', '-nolisten', 'tcp'],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  const number = await new Promise<string | null>((resolve) => {
    let out = '';
    xvfb.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('\n')) resolve(out.trim());
    });
    xvfb.on('exit', () => resolve(null));
  });
  if (number === null) return { reason: 'Xvfb did not start' };
  return { env: { ...process.env, DISPLAY: `:${number}` }, xvfb };
}

/** The runtime, or the reason the desktop tests cannot run here. */
export async function desktopRuntime(): Promise<DesktopRuntime | { reason: string }> {
  const electron = electronBinary();
  if ('reason' in electron) return electron;
  const sqlite = await prepareSqliteBinding(electron.bin);
  if (!sqlite.ok) return { reason: sqlite.reason };
  const shown = await display();
  if ('reason' in shown) return shown;
  return { bin: electron.bin, env: shown.env, stop: () => shown.xvfb?.kill() };
}
