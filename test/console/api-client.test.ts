/**
 * The console's /api client against a real daemon on port 0: an operator-token rotation through
 * the client never lets a request reach the daemon with the replaced token, and a request that
 * was refused with a token this window has replaced since is sent again instead of failing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startDaemon, type DaemonHandle } from '../../main/core/daemon';
import { createApiClient } from '../../renderer/src/api/api-client';

let root: string;
let daemon: DaemonHandle;
/** Status of every /api answer the daemon gave, as the client's fetch saw it. */
const statuses: { path: string; status: number }[] = [];
const realFetch = globalThis.fetch;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'aep-api-client-'));
  daemon = await startDaemon({ dataDir: join(root, 'data'), port: 0, baseFeatures: [] });
  globalThis.fetch = async (input, init) => {
    const response = await realFetch(input, init);
    statuses.push({ path: new URL(String(input)).pathname, status: response.status });
    return response;
  };
});

afterAll(async () => {
  globalThis.fetch = realFetch;
  await daemon?.close();
  if (root) rmSync(root, { recursive: true, force: true });
});

describe('api client and operator-token rotation', () => {
  test('polls running across a rotation all succeed and the daemon never sees the replaced token', async () => {
    statuses.length = 0;
    let token = daemon.tokens.operator;
    const before = token;
    const api = createApiClient(daemon.url, () => token, { adoptOperatorToken: (next) => (token = next) });
    let rotated = false;
    const failures: string[] = [];
    // Four pollers keep requests in flight the whole time, as the console's polling does.
    const poller = async (): Promise<void> => {
      let after = 0;
      while (!rotated || after++ < 3) {
        const route = after % 2 ? 'GET /api/status' : 'GET /api/settings';
        const r = await api(route, undefined);
        if (!r.ok) failures.push(`${route}: ${r.error.code} ${r.error.message}`);
      }
    };
    const polling = [poller(), poller(), poller(), poller()];
    await new Promise((resolve) => setTimeout(resolve, 30));
    const rotation = await api('POST /api/tokens/rotate', { which: 'operator' });
    rotated = true;
    await Promise.all(polling);
    expect(rotation.ok).toBe(true);
    expect(token).not.toBe(before);
    expect(rotation.ok && rotation.value.token).toBe(token);
    expect(failures).toEqual([]);
    expect(statuses.filter((s) => s.status === 401 || s.status === 403)).toEqual([]);
    expect(statuses.filter((s) => s.path === '/api/status').length).toBeGreaterThan(4);
    // The replaced token is locked out.
    const old = await createApiClient(daemon.url, () => before)('GET /api/status', undefined);
    expect(old.ok ? 'ok' : old.error.code).toBe('unauthorized');
  });

  test('a request refused with a token replaced meanwhile is sent once more with the new one', async () => {
    let token: string | null = daemon.tokens.operator;
    const api = createApiClient(daemon.url, () => token);
    // Rotated elsewhere (another window, the CLI): this client still holds the old token.
    const elsewhere = await createApiClient(daemon.url, () => token)('POST /api/tokens/rotate', { which: 'operator' });
    expect(elsewhere.ok).toBe(true);
    statuses.length = 0;
    const pending = api('GET /api/status', undefined);
    // The window adopts the new token while the request with the old one is on its way.
    token = elsewhere.ok ? elsewhere.value.token : null;
    const r = await pending;
    expect(r.ok).toBe(true);
    expect(statuses.map((s) => s.status)).toEqual([401, 200]);
  });

  test('a refusal with the token still in use is reported, not retried', async () => {
    const api = createApiClient(daemon.url, () => 'not-the-operator-token');
    statuses.length = 0;
    const r = await api('GET /api/status', undefined);
    expect(r.ok ? 'ok' : r.error.code).toBe('unauthorized');
    expect(statuses.map((s) => s.status)).toEqual([401]);
  });
});
