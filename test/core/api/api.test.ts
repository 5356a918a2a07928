import { afterEach, describe, expect, it } from 'vitest';
import { err, ok } from '../../../common/result';
import { apiError } from '../../../main/core/api/index';
import {
  http,
  postEvents,
  sessionEvents,
  replaySession,
  startTestDaemon,
  type TestDaemon,
} from '../relay/harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

const call = (method: string, path: string, body?: unknown, token?: string) =>
  http(d.url, {
    method,
    path,
    headers: {
      Authorization: `Bearer ${token ?? d.tokens.operator}`,
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });

describe('/api router', () => {
  it('answers unknown routes with 404 JSON and wrong methods with 405 JSON', async () => {
    d = await startTestDaemon();
    const missing = await call('GET', '/api/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ error: 'not-found' });
    const wrong = await call('DELETE', '/api/status');
    expect(wrong.status).toBe(405);
  });

  it('answers a malformed JSON body with 400 JSON', async () => {
    d = await startTestDaemon();
    const reply = await call('PATCH', '/api/settings', '{not json');
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: 'bad-request' });
  });

  it('hands registered handlers validated input and serves their replies', async () => {
    d = await startTestDaemon();
    d.context.api.register({
      'GET /api/instructions': {
        parse: (raw) => {
          const session = (raw as Record<string, unknown>).session;
          return session === undefined || typeof session === 'string'
            ? ok({ session: session as string | undefined })
            : err('bad-request', 'session');
        },
        handle: (input) => (input.session === 'teapot' ? apiError(418, 'teapot') : []),
      },
    });
    expect((await call('GET', '/api/instructions?session=a')).json).toEqual([]);
    expect((await call('GET', '/api/instructions?session=teapot')).status).toBe(418);
  });
});

describe('GET /api/status', () => {
  it('reports version, pid, url, data dir and live counts', async () => {
    d = await startTestDaemon({ version: '9.9.9' });
    await postEvents(d.url, d.tokens.hook, sessionEvents('st', 3));
    const status = (await call('GET', '/api/status')).json as Record<string, unknown>;
    expect(status).toMatchObject({
      version: '9.9.9',
      pid: process.pid,
      url: d.url,
      dataDir: d.dataDir,
      steeringEnabled: false,
      counts: { events: 3, sessions: 1, connections: 0, subscribers: 0 },
      lastHook: {},
    });
  });
});

describe('/api/settings', () => {
  it('validates PATCH all-or-nothing with a 400 naming the key', async () => {
    d = await startTestDaemon();
    const bad = await call('PATCH', '/api/settings', {
      'ui.theme': 'dark',
      'retention.maxEventsPerSession': -1,
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.json)).toContain('retention.maxEventsPerSession');
    expect(d.context.settings.get('ui.theme')).toBe('system');
    const unknown = await call('PATCH', '/api/settings', { 'no.such': 1 });
    expect(unknown.status).toBe(400);
    const array = await call('PATCH', '/api/settings', [1]);
    expect(array.status).toBe(400);
  });

  it('applies a retention change at once, advertises it and audits it', async () => {
    d = await startTestDaemon();
    await postEvents(d.url, d.tokens.hook, sessionEvents('keep', 10));
    const reply = await call('PATCH', '/api/settings', { 'retention.maxEventsPerSession': 4 });
    expect(reply.status).toBe(200);
    expect((reply.json as Record<string, unknown>)['retention.maxEventsPerSession']).toBe(4);
    expect((await replaySession(d.url, d.tokens.operator, 'keep')).map((e) => e.seq)).toEqual([
      7, 8, 9, 10,
    ]);
    const discovery = (await call('GET', '/.well-known/aep')).json as {
      capabilities: { replay: { buffer: number } };
    };
    expect(discovery.capabilities.replay.buffer).toBe(4);
    expect(d.context.audit.query({ action: 'settings.changed' }).rows[0].detail).toEqual({
      'retention.maxEventsPerSession': { from: 10_000, to: 4 },
    });
    expect(
      ((await call('GET', '/api/settings')).json as Record<string, unknown>)[
        'retention.maxEventsPerSession'
      ],
    ).toBe(4);
  });
});

describe('/api/audit', () => {
  it('pages audit rows with filters and refuses bad query values', async () => {
    d = await startTestDaemon();
    for (let i = 0; i < 3; i++)
      d.context.audit.append({
        actor: 'operator',
        surface: 'console',
        action: 'test.row',
        session: 's',
        commandId: null,
        outcome: 'ok',
        detail: { i },
      });
    d.context.audit.append({
      actor: 'operator',
      surface: 'cli',
      action: 'other',
      session: null,
      commandId: null,
      outcome: 'ok',
      detail: null,
    });
    const page = (await call('GET', '/api/audit?action=test.row&limit=2')).json as {
      rows: { detail: { i: number } }[];
      next: number;
      total: number;
    };
    expect(page.total).toBe(3);
    expect(page.rows.map((r) => r.detail.i)).toEqual([2, 1]);
    const rest = (await call('GET', `/api/audit?action=test.row&before=${page.next}`)).json as {
      rows: unknown[];
      next: null;
    };
    expect(rest.rows).toHaveLength(1);
    expect(rest.next).toBeNull();
    expect((await call('GET', '/api/audit?limit=zero')).status).toBe(400);
    expect((await call('GET', '/api/audit?surface=carrier-pigeon')).status).toBe(400);
  });

  it('exports the matching rows as JSON Lines and as CSV', async () => {
    d = await startTestDaemon();
    d.context.audit.append({
      actor: 'operator',
      surface: 'console',
      action: 'x',
      session: 's,1',
      commandId: 'c1',
      outcome: 'ok',
      detail: { text: 'say "hi"' },
    });
    d.context.audit.append({
      actor: '=cmd()',
      surface: 'cli',
      action: 'y',
      session: null,
      commandId: null,
      outcome: 'refused',
      detail: null,
    });
    const jsonl = await call('GET', '/api/audit/export?format=jsonl');
    expect(jsonl.headers['content-type']).toMatch(/^application\/x-ndjson/);
    const rows = jsonl.text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { action: string });
    expect(rows.map((r) => r.action)).toEqual(['y', 'x']);
    const csv = await call('GET', '/api/audit/export?format=csv&outcome=ok');
    expect(csv.headers['content-type']).toMatch(/^text\/csv/);
    expect(csv.headers['content-disposition']).toMatch(/attachment; filename="audit-.*\.csv"/);
    const lines = csv.text.trim().split('\r\n');
    expect(lines[0]).toBe('id,time,actor,surface,action,session,commandId,outcome,detail');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain('"s,1"');
    expect(lines[1]).toContain('"{""text"":""say \\""hi\\""""}"');
    const all = await call('GET', '/api/audit/export?format=csv');
    expect(all.text).toContain("'=cmd()");
    expect((await call('GET', '/api/audit/export?format=xml')).status).toBe(400);
  });
});

describe('POST /api/tokens/rotate', () => {
  it('replaces the token at once: the old one is refused, the new one works, the file changes', async () => {
    d = await startTestDaemon();
    const old = d.tokens.hook;
    const reply = await call('POST', '/api/tokens/rotate', { which: 'hook' });
    expect(reply.status).toBe(200);
    const { token } = reply.json as { which: string; token: string };
    expect(token).not.toBe(old);
    expect(d.tokens.hook).toBe(token);
    expect((await postEvents(d.url, old, sessionEvents('r', 1))).status).toBe(401);
    expect((await postEvents(d.url, token, sessionEvents('r', 1))).status).toBe(202);
    const { readFileSync } = await import('node:fs');
    const { join } = await import('node:path');
    expect(readFileSync(join(d.dataDir, 'hook-token'), 'utf8').trim()).toBe(token);
    expect(d.context.audit.query({ action: 'tokens.rotated' }).total).toBe(1);
    expect((await call('POST', '/api/tokens/rotate', { which: 'root' })).status).toBe(400);
  });
});
