/**
 * Quitting the desktop app while a launched session runs asks first (issue 9): the composition root
 * (fake electron, real daemon) with the mock ACP agent launched through /api/launch. Cancel keeps
 * the app and the session; confirming drains the daemon, which ends the session.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterAll, expect, it, vi } from 'vitest';
import * as fake from './fake-electron';

vi.mock('electron', async () => (await import('./fake-electron')).fakeElectron);

const MOCK_AGENT = fileURLToPath(new URL('../../support/mock-acp-agent.mjs', import.meta.url));
const savedArgv = process.argv;
const root = mkdtempSync(join(tmpdir(), 'aep-shell-quit-'));
afterAll(() => {
  process.argv = savedArgv;
  rmSync(root, { recursive: true, force: true });
});

it('asks before quitting while a launched session runs; Cancel keeps it, confirming ends it and quits', async () => {
  const dataDir = join(root, 'data');
  fake.app.appPath = fileURLToPath(new URL('../../..', import.meta.url));
  fake.paths.set('home', root);
  process.argv = ['/usr/lib/electron/electron', fake.app.appPath, '--data-dir', dataDir, '--port', '0', '--hidden'];
  const asked = vi.spyOn(fake.fakeElectron.dialog, 'showMessageBox');
  await import('../../../main/index');
  const menu = await fake.trayMenus.next((m) => m.some((i) => i.label === 'No live sessions'));
  const quit = (): void => menu.find((i) => i.label === 'Quit')?.click?.();

  const { url } = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as { url: string };
  const operator = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();
  const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: { authorization: `Bearer ${operator}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json() };
  };
  expect((await api('PATCH', '/api/settings', { 'agents.qwen-code.command': [process.execPath, MOCK_AGENT] })).status).toBe(200);
  const launched = await api('POST', '/api/launch', { agent: 'qwen-code', cwd: root });
  expect(launched.status, JSON.stringify(launched.json)).toBe(200);
  const session = (launched.json as { session: string }).session;

  // Cancel: nothing closes, the daemon and the session stay.
  fake.dialogAnswers.push(1);
  quit();
  await vi.waitFor(() => expect(asked).toHaveBeenCalledTimes(1));
  expect((asked.mock.calls[0] as unknown[])[0]).toMatchObject({ type: 'question', message: 'One launched agent session is still running (Qwen Code).' });
  await new Promise((r) => setImmediate(r));
  expect(fake.exits.values).toEqual([]);
  const list = (await api('GET', '/api/launched')).json as { session: string; state: string }[];
  expect(list.find((s) => s.session === session)?.state).not.toMatch(/ended|resumable/);

  // Confirm: the quit goes ahead and the drain ends the session.
  fake.dialogAnswers.push(0);
  quit();
  expect(await fake.exits.next()).toBe(0);
  expect(asked).toHaveBeenCalledTimes(2);
  await expect(fetch(`${url}/healthz`)).rejects.toThrow();
  const db = new Database(join(dataDir, 'companion.db'), { readonly: true });
  const row = db.prepare('SELECT state, end_reason FROM launched_sessions WHERE session = ?').get(session);
  db.close();
  // The mock agent advertises loadSession: ended by the drain, and resumable.
  expect(row).toEqual({ state: 'resumable', end_reason: 'daemon shutdown' });
});
