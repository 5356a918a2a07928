/**
 * Server hardening (issue 8 §1, §4): `access_token` only where a browser cannot send a header
 * (SSE, WS upgrades); database files and the data directory are the owner's alone; every HTTP and
 * WS handler runs under a guard that logs, audits and answers, and the connection stays.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Feature } from '../../../main/core/daemon-context';
import { startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import { http, SseClient, startTestDaemon, WsClient, type TestDaemon } from '../relay/harness';

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

describe('access_token in the query', () => {
  it('is accepted on GET /stream and WS upgrades only', async () => {
    d = await startTestDaemon();
    const sse = await SseClient.open(d.url, `/stream?access_token=${d.tokens.operator}`);
    expect(sse.status).toBe(200);
    sse.close();
    const ws = await WsClient.connect(d.url, null, { query: `?access_token=${d.tokens.operator}` });
    ws.send({ type: 'hello', versions: ['0.1'], role: 'consumer' });
    ws.send({ type: 'roster', id: 'r' });
    expect(await ws.next((f) => f.type === 'roster')).toMatchObject({ id: 'r' });
    ws.close();

    const api = await http(d.url, { path: `/api/status?access_token=${d.tokens.operator}` });
    expect(api.status).toBe(401);
    expect((api.json as { detail: string }).detail).toMatch(
      /accepted only on GET \/stream and WebSocket upgrades/,
    );
    const events = await http(d.url, {
      method: 'POST',
      path: `/events?access_token=${d.tokens.hook}`,
      headers: { 'AEP-Version': '0.1', 'Content-Type': 'application/json' },
      body: '{}',
    });
    expect(events.status).toBe(401);
    expect(
      (
        await http(d.url, {
          path: '/api/status',
          headers: { Authorization: `Bearer ${d.tokens.operator}` },
        })
      ).status,
    ).toBe(200);
  });
});

describe('file modes', () => {
  it('creates the database, WAL and SHM 0600 and tightens a data directory others can read to 0700', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aep-modes-'));
    const dataDir = join(root, 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    let daemon: DaemonHandle | undefined;
    try {
      daemon = await startDaemon({ dataDir, port: 0, baseFeatures: [] });
      const mode = (f: string): string => (statSync(f).mode & 0o777).toString(8);
      expect(mode(dataDir)).toBe('700');
      for (const f of ['companion.db', 'companion.db-wal', 'companion.db-shm'])
        expect([f, mode(join(dataDir, f))]).toEqual([f, '600']);
    } finally {
      await daemon?.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('the per-message guards', () => {
  it('answers a failing HTTP handler with 500, audits it, and keeps serving', async () => {
    const failing: Feature = (ctx) =>
      ctx.routes.register({
        method: 'GET',
        path: '/boom',
        auth: 'none',
        handler: () => {
          throw new Error('handler exploded');
        },
      });
    d = await startTestDaemon({ features: [failing] });
    const reply = await http(d.url, { path: '/boom' });
    expect(reply.status).toBe(500);
    expect(reply.json).toMatchObject({ error: 'internal-error' });
    const rows = d.context.audit.query({ action: 'handler.failed' }).rows;
    expect(
      rows.map((r) => [r.surface, r.outcome, (r.detail as { request: string }).request]),
    ).toEqual([['api', 'error', 'GET /boom']]);
    expect((await http(d.url, { path: '/healthz' })).status).toBe(200);
  });

  it('answers a failing WS frame handler with an error frame, audits it, and keeps the connection', async () => {
    d = await startTestDaemon();
    const claims = d.context.relay.claims;
    claims.roster = () => {
      throw new Error('roster exploded');
    };
    const c = await WsClient.hello(d.url, d.tokens.operator);
    c.send({ type: 'roster', id: 'r' });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'internal-error' });
    await c.sync();
    expect(c.closed).toBe(false);
    const rows = d.context.audit.query({ action: 'handler.failed' }).rows;
    expect(rows.map((r) => [r.surface, (r.detail as { error: string }).error])).toEqual([
      ['ws', 'roster exploded'],
    ]);
    c.close();
  });
});
