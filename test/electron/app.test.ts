/**
 * The desktop app for real: Playwright's `_electron.launch` starts the built app with a temp data
 * directory on port 0, and the console window shows the sessions view, then a session that a real
 * hook call created. Skips, saying why, where the Electron binary is absent (it is never
 * downloaded from here), SQLite cannot be prepared for it, or there is no display
 * (desktop-runtime.ts); the same shell is covered in Node by
 * test/core/electron/composition-root.test.ts.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { _electron, type ElectronApplication } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { desktopRuntime } from './desktop-runtime';

const repo = fileURLToPath(new URL('../..', import.meta.url));

const runtime = await desktopRuntime();
const skipReason = 'reason' in runtime ? runtime.reason : null;
if (skipReason !== null) process.stdout.write(`test/electron: skipped: ${skipReason}\n`);

describe.skipIf(skipReason !== null)(skipReason === null ? 'desktop app' : `desktop app (skipped: ${skipReason})`, () => {
  let app: ElectronApplication | undefined;
  let root: string | undefined;

  afterAll(async () => {
    // close() quits the app, which drains the daemon before exiting.
    await app?.close();
    if (!('reason' in runtime)) runtime.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('opens the console window on the sessions view and shows a session a hook created', async () => {
    expect(existsSync(join(repo, 'out', 'main', 'index.js')), 'build first: npx electron-vite build').toBe(true);
    root = mkdtempSync(join(tmpdir(), 'aep-electron-'));
    const dataDir = join(root, 'data');
    app = await _electron.launch({
      executablePath: (runtime as { bin: string }).bin,
      args: [repo, '--data-dir', dataDir, '--port', '0', '--skip-wizard'],
      cwd: repo,
      env: (runtime as { env: Record<string, string> }).env,
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
