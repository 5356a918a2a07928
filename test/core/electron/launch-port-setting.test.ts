/** The desktop app without a --port launch option binds the stored `server.port` setting (fake electron, real daemon). */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';
import { startDaemon } from '../../../main/core/daemon';
import * as fake from './fake-electron';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const savedArgv = process.argv;
const root = mkdtempSync(join(tmpdir(), 'aep-shell-port-'));
afterAll(() => {
  process.argv = savedArgv;
  rmSync(root, { recursive: true, force: true });
});

it('listens on the stored server.port when launched without --port', async () => {
  const dataDir = join(root, 'data');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const port = (probe.address() as { port: number }).port;
  await new Promise((r) => probe.close(r));
  // The setting as the Settings view leaves it: stored in this data directory's database.
  const before = await startDaemon({ dataDir, port: 0, baseFeatures: [] });
  expect(before.context.settings.set({ 'server.port': port }).ok).toBe(true);
  await before.close();

  fake.app.appPath = fileURLToPath(new URL('../../..', import.meta.url));
  fake.paths.set('home', root);
  process.argv = ['/usr/lib/electron/electron', fake.app.appPath, '--data-dir', dataDir, '--hidden'];
  await import('../../../main/index');
  const menu = await fake.trayMenus.next((m) => m.some((i) => i.label === 'No live sessions'));
  const { url } = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { url: string };
  expect(url).toBe(`http://127.0.0.1:${port}`);
  menu.find((i) => i.label === 'Quit')?.click?.();
  expect(await fake.exits.next()).toBe(0);
});
