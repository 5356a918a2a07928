/**
 * The browser console's cookie: set only for the operator token, HttpOnly and SameSite=Strict,
 * named for the daemon's port; accepted in place of the token only from the daemon's own page
 * (Sec-Fetch-Site: same-origin or an own Origin), for /api and the WebSocket; never a hook token;
 * ended by a rotation of the operator token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { consoleCookieValue } from '../../../main/core/server/auth';
import { http, startTestDaemon, WsClient, type TestDaemon } from '../relay/harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });
const portOf = (url: string): number => Number(new URL(url).port);

/** The `name=value` pair of the Set-Cookie answer to a sign-in with `token`. */
async function signIn(token: string): Promise<{ status: number; setCookie: string | undefined }> {
  const r = await http(d.url, { method: 'POST', path: '/api/auth/cookie', headers: { ...bearer(token), 'Content-Type': 'application/json' }, body: '{}' });
  const set = r.headers['set-cookie'];
  return { status: r.status, setCookie: Array.isArray(set) ? set[0] : set };
}

describe('console cookie', () => {
  it('is set for the operator token only, HttpOnly, SameSite=Strict and named for the port', async () => {
    d = await startTestDaemon();
    const port = portOf(d.url);
    const { status, setCookie } = await signIn(d.tokens.operator);
    expect(status).toBe(200);
    expect(setCookie).toBeDefined();
    const parts = setCookie!.split(';').map((p) => p.trim());
    expect(parts[0]).toBe(`aep-console-${port}=${consoleCookieValue(d.tokens.operator, port)}`);
    expect(parts).toContain('HttpOnly');
    expect(parts).toContain('SameSite=Strict');
    expect(parts).toContain('Path=/');
    // The cookie never carries a token itself.
    expect(setCookie).not.toContain(d.tokens.operator);
    expect(setCookie).not.toContain(d.tokens.hook);

    const hook = await signIn(d.tokens.hook);
    expect(hook.status).toBe(403);
    expect(hook.setCookie).toBeUndefined();
    expect((await signIn('not-a-token')).status).toBe(401);
  });

  it('stands for the operator on /api and the WebSocket from the own page only', async () => {
    d = await startTestDaemon();
    const port = portOf(d.url);
    const cookie = `other=1; aep-console-${port}=${consoleCookieValue(d.tokens.operator, port)}`;
    const ownPage = { Cookie: cookie, 'Sec-Fetch-Site': 'same-origin' };
    expect((await http(d.url, { path: '/api/status', headers: ownPage })).status).toBe(200);
    expect((await http(d.url, { path: '/api/status', headers: { Cookie: cookie, Origin: d.url } })).status).toBe(200);
    // Another port of the same host is the same site: its page sends the cookie too, and is refused.
    expect((await http(d.url, { path: '/api/status', headers: { Cookie: cookie, 'Sec-Fetch-Site': 'same-site' } })).status).toBe(401);
    expect((await http(d.url, { path: '/api/status', headers: { Cookie: cookie } })).status).toBe(401);
    expect((await http(d.url, { path: '/api/status', headers: { Cookie: cookie, Origin: 'http://127.0.0.1:1' } })).status).toBe(403);
    // Another daemon's cookie (another port), a forged one, or a hook token's HMAC is nothing.
    for (const forged of [
      `aep-console-${port + 1}=${consoleCookieValue(d.tokens.operator, port + 1)}`,
      `aep-console-${port}=${consoleCookieValue(d.tokens.hook, port)}`,
      `aep-console-${port}=${d.tokens.operator}`,
      `aep-console-${port}=${d.tokens.hook}`,
      `aep-console-${port}=`,
    ]) {
      expect((await http(d.url, { path: '/api/status', headers: { Cookie: forged, 'Sec-Fetch-Site': 'same-origin' } })).status).toBe(401);
    }
    const ws = await WsClient.connect(d.url, null, { headers: { Cookie: cookie, Origin: d.url } });
    ws.send({ type: 'hello', versions: ['0.1'], role: 'consumer' });
    const hello = await ws.next((f) => f.type === 'hello');
    expect(hello.type).toBe('hello');
    ws.ws.close();
    // A refused upgrade is answered with an `unauthorized` frame and close code 1008.
    const refused = await WsClient.connect(d.url, null, { headers: { Cookie: `aep-console-${port}=${consoleCookieValue(d.tokens.hook, port)}`, Origin: d.url } });
    expect((await refused.next((f) => f.type === 'error')).code).toBe('unauthorized');
  });

  it('ends with a rotation of the operator token and is audited when set', async () => {
    d = await startTestDaemon();
    const port = portOf(d.url);
    const headers = { Cookie: `aep-console-${port}=${consoleCookieValue(d.tokens.operator, port)}`, 'Sec-Fetch-Site': 'same-origin' };
    expect((await signIn(d.tokens.operator)).status).toBe(200);
    expect((await http(d.url, { path: '/api/status', headers })).status).toBe(200);
    const rotated = await http(d.url, { method: 'POST', path: '/api/tokens/rotate', headers: { ...headers, 'Content-Type': 'application/json' }, body: '{"which":"operator"}' });
    expect(rotated.status).toBe(200);
    expect((await http(d.url, { path: '/api/status', headers })).status).toBe(401);
    const audit = await http(d.url, { path: '/api/audit?action=console.signed-in', headers: bearer((rotated.json as { token: string }).token) });
    expect(JSON.stringify(audit.json)).toContain('console.signed-in');
  });
});
