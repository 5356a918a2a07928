/**
 * "Restart needed" tells the truth (issue 11): `GET /api/status` lists a restart-needing setting
 * only after its value changed since this daemon started, not because the daemon happens to run
 * on another port than the setting names (`serve --port 0`), and not for settings that apply at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { http, startTestDaemon, type TestDaemon } from '../relay/harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

const call = async (method: string, path: string, body?: unknown) => {
  const res = await http(d.url, {
    method,
    path,
    headers: {
      Authorization: `Bearer ${d.tokens.operator}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  return res.json as Record<string, unknown>;
};

describe('GET /api/status restartNeeded', () => {
  it('is empty on a daemon whose port differs from the setting, and names the port only once it changed', async () => {
    d = await startTestDaemon();
    expect(new URL(d.url).port).not.toBe('8787');
    expect((await call('GET', '/api/status')).restartNeeded).toEqual([]);
    await call('PATCH', '/api/settings', { 'ui.theme': 'dark', 'capture.ceiling': 'full' });
    expect((await call('GET', '/api/status')).restartNeeded).toEqual([]);
    await call('PATCH', '/api/settings', { 'server.port': 9911 });
    expect((await call('GET', '/api/status')).restartNeeded).toEqual(['server.port']);
    await call('PATCH', '/api/settings', { 'server.port': 8787 });
    expect((await call('GET', '/api/status')).restartNeeded).toEqual([]);
  });
});
