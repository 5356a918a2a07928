/**
 * The desktop app for real: Playwright's `_electron.launch` starts the built app with a temp data
 * directory on port 0, and the console window shows the sessions view, then a session that a real
 * hook call created. Skips, saying why, where the Electron binary is absent (it is never
 * downloaded from here) or there is no display; the same shell is covered in Node by
 * test/core/electron/composition-root.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, type ElectronApplication } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('../..', import.meta.url));

/** The Electron executable, or why the test cannot run. Never triggers the package's download. */
function electronBinary(): { bin: string } | { reason: string } {
  let pkgDir: string;
  try {
    pkgDir = dirname(createRequire(import.meta.url).resolve('electron/package.json'));
  } catch {
    return { reason: 'the electron package is not installed' };
  }
  const pathFile = join(pkgDir, 'path.txt');
  if (!existsSync(pathFile)) return { reason: `the Electron binary is absent (${pathFile} missing)` };
  const name = readFileSync(pathFile, 'utf8').trim();
  const bin = process.env.ELECTRON_OVERRIDE_DIST_PATH ? join(process.env.ELECTRON_OVERRIDE_DIST_PATH, name) : join(pkgDir, 'dist', name);
  if (!existsSync(bin)) return { reason: `the Electron binary is absent (${bin} missing)` };
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return { reason: 'there is no display (DISPLAY and WAYLAND_DISPLAY unset)' };
  return { bin };
}

const found = electronBinary();
const skipReason = 'reason' in found ? found.reason : null;
if (skipReason !== null) process.stdout.write(`test/electron: skipped: ${skipReason}\n`);

describe.skipIf(skipReason !== null)(skipReason === null ? 'desktop app' : `desktop app (skipped: ${skipReason})`, () => {
  let app: ElectronApplication | undefined;
  let root: string | undefined;

  afterAll(async () => {
    // close() quits the app, which drains the daemon before exiting.
    await app?.close();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('opens the console window on the sessions view and shows a session a hook created', async () => {
    expect(existsSync(join(repo, 'out', 'main', 'index.js')), 'build first: npx electron-vite build').toBe(true);
    root = mkdtempSync(join(tmpdir(), 'aep-electron-'));
    const dataDir = join(root, 'data');
    app = await _electron.launch({
      executablePath: (found as { bin: string }).bin,
      args: [repo, '--data-dir', dataDir, '--port', '0', '--skip-wizard'],
      cwd: repo,
    });
    const win = await app.firstWindow();
    await win.getByText('No sessions yet').first().waitFor();

    // The page is sandboxed: the bridge is there, Node is not.
    expect(await win.evaluate(() => typeof (window as unknown as { require?: unknown }).require)).toBe('undefined');
    expect(await win.evaluate(() => Object.keys((window as unknown as { companion: object }).companion).sort())).toEqual([
      'bootstrap:get',
      'notify:show',
      'shell:open-external',
      'window:close',
    ]);

    const { url } = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { url: string };
    expect(win.url().startsWith(`${url}/`)).toBe(true);
    const hookToken = readFileSync(join(dataDir, 'hook-token'), 'utf8').trim();
    const res = await fetch(`${url}/hooks/claude-code`, {
      method: 'POST',
      headers: { authorization: `Bearer ${hookToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'electron-e2e', cwd: '/home/u/web-app', source: 'startup' }),
    });
    expect(res.status).toBe(200);
    await win.locator('[data-testid="session-row"]').first().waitFor();
    await win.screenshot({ path: join(repo, 'test-results', 'electron-sessions.png') });
  });
});
