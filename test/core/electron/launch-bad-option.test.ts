/** main/index.ts refuses a malformed launch option before touching anything (fake electron, see fake-electron.ts). */
import { afterAll, expect, it, vi } from 'vitest';
import * as fake from './fake-electron';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const savedArgv = process.argv;
afterAll(() => {
  process.argv = savedArgv;
});

it('says what is wrong in one line and exits with code 2, without taking the lock or starting a daemon', async () => {
  process.argv = ['/usr/lib/electron/electron', '/repo', '--port', 'eighty'];
  await import('../../../main/index');
  expect(await fake.exits.next()).toBe(2);
  expect(fake.errorBoxes).toEqual([{ title: 'AEP Companion could not start', content: '--port must be an integer from 0 to 65535' }]);
  expect(fake.calls).not.toContain('requestSingleInstanceLock');
  expect(fake.windows).toHaveLength(0);
});
