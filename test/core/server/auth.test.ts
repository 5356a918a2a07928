import { statSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  http,
  makeEvent,
  postEvents,
  SseClient,
  startTestDaemon,
  WsClient,
  type TestDaemon,
} from '../relay/harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

const bearer = (token: string): Record<string, string> => ({ Authorization: `Bearer ${token}` });

describe('tokens', () => {
  it('creates the operator and hook tokens as 0600 files at first run and keeps them across restarts', async () => {
    d = await startTestDaemon();
    for (const name of ['operator-token', 'hook-token']) {
      const file = join(d.dataDir, name);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    }
    expect(readFileSync(join(d.dataDir, 'operator-token'), 'utf8').trim()).toBe(d.tokens.operator);
    expect(d.tokens.operator).not.toBe(d.tokens.hook);
    expect(d.tokens.operator.length).toBeGreaterThanOrEqual(32);
  });
});

describe('route authorization', () => {
  it('answers /healthz without a token, and adds counts only with one', async () => {
    d = await startTestDaemon();
    expect((await http(d.url, { path: '/healthz' })).json).toEqual({ ok: true });
    const withToken = (await http(d.url, { path: '/healthz', headers: bearer(d.tokens.operator) }))
      .json as Record<string, unknown>;
    expect(withToken).toMatchObject({
      ok: true,
      sessions: 0,
      events: 0,
      connections: 0,
      subscribers: 0,
    });
  });

  it('refuses every other route without a valid token with 401 JSON', async () => {
    d = await startTestDaemon();
    const requests: { method?: string; path: string; headers?: Record<string, string> }[] = [
      { path: '/events' },
      { path: '/.well-known/aep' },
      { path: '/stream' },
      { path: '/api/status' },
      { path: '/api/status', headers: bearer('not-the-token') },
      { path: '/api/status', headers: { Authorization: 'Basic abc' } },
      {
        method: 'POST',
        path: '/events',
        headers: { 'AEP-Version': '0.1', 'Content-Type': 'application/json' },
      },
    ];
    for (const r of requests) {
      const reply = await http(d.url, r);
      expect(reply.status, r.path).toBe(401);
      expect((reply.json as { error: string }).error).toBe('unauthorized');
    }
  });

  it('lets the hook token ingest but not subscribe, read the API or change settings', async () => {
    d = await startTestDaemon();
    expect((await postEvents(d.url, d.tokens.hook, makeEvent())).status).toBe(202);
    for (const r of [
      { path: '/stream' },
      { path: '/api/status' },
      { method: 'PATCH', path: '/api/settings', body: '{"ui.theme":"dark"}' },
    ]) {
      const reply = await http(d.url, {
        ...r,
        headers: { ...bearer(d.tokens.hook), 'Content-Type': 'application/json' },
      });
      expect(reply.status, r.path).toBe(403);
      expect((reply.json as { error: string }).error).toBe('forbidden');
    }
    expect(d.context.settings.get('ui.theme')).toBe('system');
  });

  it('accepts the access_token query parameter for SSE and never logs it', async () => {
    const lines: string[] = [];
    const { configureLogging, stderrSink } = await import('../../../main/core/logger');
    configureLogging({ level: 'debug', sink: (r) => lines.push(JSON.stringify(r)) });
    try {
      d = await startTestDaemon();
      const sse = await SseClient.open(d.url, `/stream?access_token=${d.tokens.operator}`);
      expect(sse.status).toBe(200);
      sse.close();
      await http(d.url, { path: `/api/status?access_token=${d.tokens.hook}` });
      await http(d.url, { path: `/api/status?access_token=wrong-token-value` });
      await d.close();
      expect(lines.length).toBeGreaterThan(0);
      for (const line of lines) {
        expect(line).not.toContain(d.tokens.operator);
        expect(line).not.toContain(d.tokens.hook);
        expect(line).not.toContain('wrong-token-value');
      }
    } finally {
      configureLogging({ level: 'warn', sink: stderrSink });
    }
  });

  it('refuses a non-loopback Host and a foreign Origin, and records each refusal in the audit table', async () => {
    d = await startTestDaemon();
    const badHost = await http(d.url, {
      path: '/api/status',
      headers: { ...bearer(d.tokens.operator), Host: 'attacker.example:80' },
    });
    expect(badHost.status).toBe(403);
    expect((badHost.json as { error: string }).error).toBe('bad-host');
    const badOrigin = await http(d.url, {
      path: '/api/status',
      headers: { ...bearer(d.tokens.operator), Origin: 'http://attacker.example' },
    });
    expect(badOrigin.status).toBe(403);
    expect((badOrigin.json as { error: string }).error).toBe('bad-origin');
    const ownOrigin = await http(d.url, {
      path: '/api/status',
      headers: { ...bearer(d.tokens.operator), Origin: d.url },
    });
    expect(ownOrigin.status).toBe(200);
    const localhost = await http(d.url, {
      path: '/api/status',
      headers: { ...bearer(d.tokens.operator), Host: `localhost:${d.port}` },
    });
    expect(localhost.status).toBe(200);
    await http(d.url, { path: '/api/status' });
    const refused = d.context.audit.query({ action: 'auth.refused' });
    expect(refused.total).toBe(3);
    expect(refused.rows.map((r) => (r.detail as { code: string }).code).sort()).toEqual([
      'bad-host',
      'bad-origin',
      'unauthorized',
    ]);
    expect(JSON.stringify(refused.rows)).not.toContain(d.tokens.operator);
  });

  it('refuses WebSocket upgrades from a foreign Origin before the handshake', async () => {
    d = await startTestDaemon();
    await expect(
      WsClient.connect(d.url, d.tokens.operator, {
        headers: { Origin: 'http://attacker.example' },
      }),
    ).rejects.toThrow(/403/);
  });

  it('answers a tokenless WebSocket with an unauthorized error frame and closes it', async () => {
    d = await startTestDaemon();
    const c = await WsClient.connect(d.url, null);
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'unauthorized' });
    await c.untilClosed();
    expect(d.context.audit.query({ action: 'auth.refused', surface: 'ws' }).total).toBe(1);
  });

  it('accepts access_token on the WebSocket URL', async () => {
    d = await startTestDaemon();
    const c = await WsClient.connect(d.url, null, { query: `?access_token=${d.tokens.operator}` });
    c.send({ type: 'hello', versions: ['0.1'] });
    c.send({ type: 'roster', id: 'r' });
    expect(await c.next((f) => f.type === 'roster')).toEqual({
      type: 'roster',
      id: 'r',
      entries: [],
    });
    c.close();
  });
});

describe('tokenless watch', () => {
  it('is off by default, and when on allows watching without a token while ingest, the API and control stay refused', async () => {
    d = await startTestDaemon();
    expect((await SseClient.open(d.url, '/stream')).status).toBe(401);
    d.context.settings.set({ 'security.tokenlessWatch': true });
    const sse = await SseClient.open(d.url, '/stream');
    expect(sse.status).toBe(200);
    const event = makeEvent();
    await postEvents(d.url, d.tokens.hook, event);
    await sse.until((c) => c.events().length === 1);
    sse.close();
    expect((await http(d.url, { path: '/api/status' })).status).toBe(401);
    const post = await http(d.url, {
      method: 'POST',
      path: '/events',
      headers: { 'AEP-Version': '0.1', 'Content-Type': 'application/json' },
      body: JSON.stringify(makeEvent()),
    });
    expect(post.status).toBe(401);
    const ws = await WsClient.hello(d.url, null);
    const emitted = makeEvent();
    ws.send(emitted);
    expect(await ws.next((f) => f.type === 'error' && f.id === emitted.id)).toMatchObject({
      code: 'unauthorized',
    });
    ws.close();
  });
});
