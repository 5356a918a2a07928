/** main/index.ts reports a daemon that cannot start (its port is taken) and exits (fake electron, see fake-electron.ts). */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it, vi } from 'vitest';
import * as fake from './fake-electron';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const savedArgv = process.argv;
const root = mkdtempSync(join(tmpdir(), 'aep-shell-port-'));
let blocker: Server | undefined;
afterAll(async () => {
  process.argv = savedArgv;
  await new Promise((resolve) => blocker?.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

it('shows why the daemon could not start and exits with code 1, opening no window', async () => {
  blocker = createServer();
  await new Promise<void>((resolve) => blocker!.listen(0, '127.0.0.1', resolve));
  const port = (blocker.address() as { port: number }).port;
  fake.paths.set('appData', join(root, 'appData'));
  process.argv = ['/usr/lib/electron/electron', '/repo', '--data-dir', join(root, 'data'), '--port', String(port)];
  await import('../../../main/index');
  expect(await fake.exits.next()).toBe(1);
  expect(fake.errorBoxes).toHaveLength(1);
  expect(fake.errorBoxes[0].title).toBe('AEP Companion could not start');
  expect(fake.errorBoxes[0].content).toContain(String(port));
  expect(fake.errorBoxes[0].content).not.toMatch(/^aep-companion serve:/);
  expect(fake.windows).toHaveLength(0);
});
