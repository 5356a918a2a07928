/**
 * The five one-frame crash vectors (deeply nested JSON on the WS binding) and deep JSON on every
 * other binding: each is answered with the spec's error, the connection stays where AEP says so,
 * and the daemon keeps serving. The daemon runs in this process, so a crash fails the run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, makeEvent, postEvents, startTestDaemon, WsClient, type TestDaemon } from './harness';

let d: TestDaemon;
beforeAll(async () => {
  // The product features too: the hook route is one of the bindings.
  d = await startTestDaemon({ baseFeatures: undefined });
});
afterAll(async () => {
  await d.stop();
});

/** `depth` nested arrays as JSON text (about 2 bytes a level). */
const deepArray = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);
/** `depth` nested objects as JSON text. */
const deepObject = (depth: number): string => '{"a":'.repeat(depth) + '1' + '}'.repeat(depth);
const DEPTH = 10_000;

/** An event frame whose `key` holds a deep value (the text is spliced: JSON.stringify would overflow). */
const withDeep = (key: string, deep: string): string => {
  const base = JSON.stringify({ ...makeEvent({ session: 'deep' }), [key]: '__DEEP__' });
  return base.replace('"__DEEP__"', deep);
};

async function healthy(): Promise<void> {
  const reply = await http(d.url, { path: '/healthz' });
  expect(reply.status).toBe(200);
  expect(reply.json).toEqual({ ok: true });
}

async function alive(c: WsClient): Promise<void> {
  await c.sync();
  expect(c.closed).toBe(false);
}

describe('one deep WS frame never takes the daemon down', () => {
  it('ping with a deep t: an invalid-frame error, the connection stays', async () => {
    const c = await WsClient.hello(d.url, d.tokens.hook);
    c.send(`{"type":"ping","t":${deepArray(DEPTH)}}`);
    const error = await c.next((f) => f.type === 'error');
    expect(error.code).toBe('invalid-frame');
    expect(String(error.detail)).toMatch(/nests deeper than 128 levels/);
    await alive(c);
    await healthy();
    c.close();
  });

  it('an event with a deep aep, and one with deep data: invalid-frame errors, the connection stays', async () => {
    const c = await WsClient.hello(d.url, d.tokens.hook, { role: 'emitter' });
    c.send(withDeep('aep', deepArray(DEPTH)));
    c.send(withDeep('data', deepObject(DEPTH)));
    await c.until((x) => x.frames.filter((f) => f.type === 'error').length === 2);
    expect(c.frames.filter((f) => f.type === 'error').map((f) => f.code)).toEqual([
      'invalid-frame',
      'invalid-frame',
    ]);
    await alive(c);
    await healthy();
    c.close();
  });

  it('a subscribe with a deep filter: an error for that request, the connection stays', async () => {
    const c = await WsClient.hello(d.url, d.tokens.operator);
    c.send(`{"type":"subscribe","id":"s1","filter":{"type":${deepArray(DEPTH)}}}`);
    expect((await c.next((f) => f.type === 'error')).code).toBe('invalid-frame');
    // A deep filter within the frame bound is refused by the filter rules, fail closed.
    c.send({ type: 'subscribe', id: 's2', filter: { type: JSON.parse(deepArray(100)) } });
    expect(await c.next((f) => f.type === 'error' && f.id === 's2')).toMatchObject({
      code: 'invalid-filter',
    });
    await alive(c);
    await healthy();
    c.close();
  });

  it('an emitter declaring a deep control, then an operator roster: no crash, the roster answers', async () => {
    const emitter = await WsClient.connect(d.url, d.tokens.hook);
    emitter.send(
      `{"type":"hello","versions":["0.1"],"role":"emitter","capabilities":{"control":{"accepts":[],"x":${deepObject(DEPTH)}}}}`,
    );
    // An unparsable hello is no hello: refused and closed (AEP-0003 §3.5 rule 1).
    expect((await emitter.next((f) => f.type === 'error')).code).toBe('hello-required');
    await emitter.untilClosed();

    const bounded = await WsClient.hello(d.url, d.tokens.hook, {
      role: 'emitter',
      capabilities: { control: { accepts: ['control.pause'], x: JSON.parse(deepObject(100)) } },
    });
    bounded.send(makeEvent({ session: 'declared', source: 'aep://test/declared' }));
    await bounded.sync();
    const operator = await WsClient.hello(d.url, d.tokens.operator);
    operator.send({ type: 'roster', id: 'r1' });
    const roster = await operator.next((f) => f.type === 'roster');
    expect((roster.entries as { session: string }[]).some((e) => e.session === 'declared')).toBe(
      true,
    );
    await alive(operator);
    await healthy();
    bounded.close();
    operator.close();
  });
});

describe('hello declarations are bounded', () => {
  it('keeps no control declaration over 16 KiB, nor identities over 512 characters', async () => {
    const big = await WsClient.hello(d.url, d.tokens.hook, {
      role: 'emitter',
      identity: { agent: 'a'.repeat(600), instance: 'ok' },
      capabilities: { control: { accepts: ['control.pause'], note: 'x'.repeat(100_000) } },
    });
    big.send(makeEvent({ session: 'big-decl', source: 'aep://test/big' }));
    await big.sync();
    const operator = await WsClient.hello(d.url, d.tokens.operator);
    operator.send({ type: 'roster', id: 'r2' });
    const roster = await operator.next((f) => f.type === 'roster' && f.id === 'r2');
    const entry = (roster.entries as Record<string, unknown>[]).find(
      (e) => e.session === 'big-decl',
    );
    expect(entry).toEqual({ session: 'big-decl', instance: 'ok' });
    big.close();
    operator.close();
  });
});

describe('deep JSON on the other bindings is a 400, not a 500', () => {
  const post = (body: string, type: string, path = '/events', token = d.tokens.hook) =>
    http(d.url, {
      method: 'POST',
      path,
      headers: { Authorization: `Bearer ${token}`, 'AEP-Version': '0.1', 'Content-Type': type },
      body,
    });

  it('POST /events: one deep event, and a deep NDJSON line', async () => {
    const single = await post(withDeep('data', deepObject(DEPTH)), 'application/json');
    expect(single.status).toBe(400);
    expect(single.json).toMatchObject({ error: 'invalid-event' });
    const batch = await post(
      [JSON.stringify(makeEvent({ session: 'nd' })), withDeep('aep', deepArray(DEPTH))].join('\n'),
      'application/x-ndjson',
    );
    expect(batch.status).toBe(400);
    expect(batch.json).toMatchObject({ error: 'invalid-event', line: 2 });
    await healthy();
  });

  it('GET /stream with a deep filter', async () => {
    // Brackets unencoded, so 6,000 levels fit the 16 KiB request-line bound.
    const filter = `${encodeURIComponent('{"type":')}${deepArray(6_000)}}`;
    const reply = await http(d.url, {
      path: `/stream?filter=${filter}`,
      headers: { Authorization: `Bearer ${d.tokens.operator}` },
    });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: 'invalid-filter' });
    await healthy();
  });

  it('POST /hooks/:vendor with a deep payload', async () => {
    const reply = await post(
      `{"hook_event_name":"PostToolUse","session_id":"h1","tool_response":${deepObject(DEPTH)}}`,
      'application/json',
      '/hooks/claude-code',
    );
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: 'invalid-payload' });
    await healthy();
  });

  it('an envelope string of 10 MB is refused at once, and later batches are unaffected', async () => {
    const huge = await postEvents(d.url, d.tokens.hook, makeEvent({ id: 'x'.repeat(10 << 20) }));
    expect(huge.status).toBe(400);
    expect((huge.json as { detail: string }).detail).toMatch(
      /id is 10485760 characters long; this relay takes at most 512/,
    );
    for (const key of ['session', 'source', 'run', 'agent']) {
      const reply = await postEvents(d.url, d.tokens.hook, makeEvent({ [key]: 'y'.repeat(5_000) }));
      expect(reply.status).toBe(400);
    }
    expect((await postEvents(d.url, d.tokens.hook, makeEvent({ session: 'after' }))).status).toBe(
      202,
    );
    await healthy();
  });
});
