/** A login launch (--hidden) starts in the tray only; the tray's Open console shows the window (fake electron, see fake-electron.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';
import * as fake from './fake-electron';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const savedArgv = process.argv;
const root = mkdtempSync(join(tmpdir(), 'aep-shell-hidden-'));
afterAll(() => {
  process.argv = savedArgv;
  rmSync(root, { recursive: true, force: true });
});

it('shows no window until the tray asks for the console, then quits cleanly', async () => {
  fake.app.appPath = fileURLToPath(new URL('../../..', import.meta.url));
  fake.paths.set('home', root);
  process.argv = ['/usr/lib/electron/electron', fake.app.appPath, '--data-dir', join(root, 'data'), '--port', '0', '--hidden'];
  await import('../../../main/index');
  const menu = await fake.trayMenus.next((m) => m.some((i) => i.label === 'No live sessions'));
  expect(fake.windows).toHaveLength(0);
  menu.find((i) => i.label === 'Open console')?.click?.();
  const { win, url } = await fake.loads.next();
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
  expect(win.options.show).toBe(false);
  menu.find((i) => i.label === 'Quit')?.click?.();
  expect(await fake.exits.next()).toBe(0);
});
