import { afterEach, describe, expect, it } from 'vitest';
import {
  makeEvent,
  postEvents,
  replaySession,
  sessionEvents,
  startTestDaemon,
  WsClient,
  type TestDaemon,
} from './harness';

let d: TestDaemon;
const clients: WsClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await d?.stop();
});
const track = (c: WsClient): WsClient => {
  clients.push(c);
  return c;
};

describe('WS /socket handshake', () => {
  it('answers hello with exactly one version and the implemented capabilities', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.connect(d.url, d.tokens.operator));
    c.send({
      type: 'hello',
      versions: ['0.2', '0.1'],
      role: 'consumer',
      capabilities: { shiny: { new: true } },
    });
    const hello = await c.next((f) => f.type === 'hello');
    expect(hello.versions).toEqual(['0.1']);
    expect(hello.capabilities).toMatchObject({
      filters: ['attr-match'],
      replay: { all: true },
      roster: {},
    });
  });

  it('closes with hello-required when the first frame is not hello', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.connect(d.url, d.tokens.operator));
    c.send({ type: 'subscribe', id: 'early' });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'hello-required' });
    await c.untilClosed();
  });

  it('closes with hello-required when the first frame is binary', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.connect(d.url, d.tokens.operator));
    c.ws.send(Buffer.from([1, 2, 3]));
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'hello-required' });
    await c.untilClosed();
  });

  it('closes with version-unsupported listing the supported versions when there is no common version', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.connect(d.url, d.tokens.operator));
    c.send({ type: 'hello', versions: ['9.9'] });
    expect(await c.next((f) => f.type === 'error')).toMatchObject({
      code: 'version-unsupported',
      versions: ['0.1'],
    });
    await c.untilClosed();
  });

  it('rejects binary frames after hello and keeps the connection', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.hello(d.url, d.tokens.operator));
    c.ws.send(Buffer.from('{"type":"ping"}'));
    expect(await c.next((f) => f.type === 'error')).toMatchObject({ code: 'binary-unsupported' });
    await c.sync();
    expect(c.closed).toBe(false);
  });

  it('ignores unknown frame types and answers ping with pong echoing t', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.hello(d.url, d.tokens.operator));
    c.send({ type: 'teleport', to: 'mars' });
    c.send({ type: 'ping', t: 42 });
    expect(await c.next((f) => f.type === 'pong')).toEqual({ type: 'pong', t: 42 });
    expect(c.frames.filter((f) => f.type === 'error')).toEqual([]);
  });
});

describe('WS subscriptions', () => {
  it('multiplexes subscriptions with their own filters and stops one on unsubscribe', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.hello(d.url, d.tokens.operator));
    c.send({ type: 'subscribe', id: 'tools', filter: { type: 'tool.*' } });
    c.send({ type: 'subscribe', id: 'errors', filter: { severity: { gte: 'error' } } });
    await c.next((f) => f.type === 'subscribed' && f.id === 'tools');
    await c.next((f) => f.type === 'subscribed' && f.id === 'errors');
    const tool = makeEvent({ type: 'tool.started' });
    const bad = makeEvent({ severity: 'error' });
    const other = makeEvent();
    await postEvents(d.url, d.tokens.hook, [tool, bad, other]);
    await c.until((x) => x.events().length === 2);
    expect(c.events().map((e) => e.id)).toEqual([tool.id, bad.id]);
    c.send({ type: 'unsubscribe', id: 'tools' });
    await c.next((f) => f.type === 'unsubscribed' && f.id === 'tools');
    const tool2 = makeEvent({ type: 'tool.started' });
    const bad2 = makeEvent({ severity: 'critical' });
    await postEvents(d.url, d.tokens.hook, [tool2, bad2]);
    await c.until((x) => x.events().length === 3);
    expect(c.events()[2].id).toBe(bad2.id);
  });

  it('refuses bad subscriptions in-band with the closed code set, keeping the connection and other subscriptions', async () => {
    d = await startTestDaemon({
      relayLimits: { maxSubscriptionsPerConnection: 2, maxFromPositions: 1 },
    });
    const c = track(await WsClient.hello(d.url, d.tokens.operator));
    c.send({ type: 'subscribe', id: 'good' });
    await c.next((f) => f.type === 'subscribed' && f.id === 'good');
    const refusals: [Record<string, unknown>, string][] = [
      [{ type: 'subscribe', id: 'f1', filter: { data: 'x' } }, 'invalid-filter'],
      [{ type: 'subscribe', id: 'f2', filter: [] }, 'invalid-filter'],
      [{ type: 'subscribe', id: 'f3', from: 'everything' }, 'invalid-filter'],
      [
        { type: 'subscribe', id: 'f4', from: [{ session: 's', epoch: 'zero', seq: 1 }] },
        'invalid-filter',
      ],
      [{ type: 'subscribe', id: 'f5', capture: 'loud' }, 'invalid-filter'],
      [
        {
          type: 'subscribe',
          id: 'f6',
          from: [
            { session: 'a', epoch: 0, seq: 0 },
            { session: 'b', epoch: 0, seq: 0 },
          ],
        },
        'limit-exceeded',
      ],
      [{ type: 'subscribe', id: 'good' }, 'invalid-filter'],
    ];
    for (const [frame, code] of refusals) {
      c.send(frame);
      expect(
        await c.next((f) => f.type === 'error' && f.id === frame.id && f.code === code),
      ).toBeTruthy();
    }
    c.send({ type: 'subscribe', id: 'second' });
    await c.next((f) => f.type === 'subscribed' && f.id === 'second');
    c.send({ type: 'subscribe', id: 'third' });
    expect(await c.next((f) => f.type === 'error' && f.id === 'third')).toMatchObject({
      code: 'limit-exceeded',
    });
    const event = makeEvent();
    await postEvents(d.url, d.tokens.hook, event);
    await c.until((x) => x.events().length === 2); // one per live subscription
    expect(c.closed).toBe(false);
  });

  it('refuses subscribe and roster to a hook-token connection as unauthorized, in-band', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.hello(d.url, d.tokens.hook, { role: 'both' }));
    c.send({ type: 'subscribe', id: 's' });
    expect(await c.next((f) => f.type === 'error' && f.id === 's')).toMatchObject({
      code: 'unauthorized',
    });
    c.send({ type: 'roster', id: 'r' });
    expect(await c.next((f) => f.type === 'error' && f.id === 'r')).toMatchObject({
      code: 'unauthorized',
    });
    await c.sync();
    const audited = d.context.audit.query({ action: 'auth.refused', surface: 'ws' });
    expect(audited.rows.map((r) => (r.detail as { request: string }).request).sort()).toEqual([
      'roster',
      'subscribe',
    ]);
  });

  it('replays from positions and from all, then delivers live', async () => {
    d = await startTestDaemon();
    const events = sessionEvents('wsr', 4);
    await postEvents(d.url, d.tokens.hook, events);
    const c = track(await WsClient.hello(d.url, d.tokens.operator));
    c.send({ type: 'subscribe', id: 'p', from: [{ session: 'wsr', epoch: 0, seq: 2 }] });
    await c.until((x) => x.events().length === 2);
    expect(c.events().map((e) => e.seq)).toEqual([3, 4]);
    const c2 = track(await WsClient.hello(d.url, d.tokens.operator));
    c2.send({ type: 'subscribe', id: 'all', from: 'all' });
    await c2.until((x) => x.events().length === 4);
    const live = makeEvent({ session: 'wsr', seq: 5 });
    await postEvents(d.url, d.tokens.hook, live);
    await c2.until((x) => x.events().length === 5);
    expect(c2.events()[4].id).toBe(live.id);
    expect(c2.frames.some((f) => f.type === 'replay-exhausted')).toBe(false);
  });

  it('sends a replay-exhausted frame naming the subscription and the earliest held position', async () => {
    d = await startTestDaemon({ maxEventsPerSession: 2 });
    await postEvents(d.url, d.tokens.hook, sessionEvents('gone', 5));
    const c = track(await WsClient.hello(d.url, d.tokens.operator));
    c.send({ type: 'subscribe', id: 'x', from: [{ session: 'gone', epoch: 0, seq: 1 }] });
    expect(await c.next((f) => f.type === 'replay-exhausted')).toEqual({
      type: 'replay-exhausted',
      sub: 'x',
      session: 'gone',
      earliest: { epoch: 0, seq: 4 },
    });
    await c.until((x) => x.events().length === 2);
  });

  it('sends a closing frame with the delivered positions on orderly shutdown', async () => {
    d = await startTestDaemon();
    const c = track(await WsClient.hello(d.url, d.tokens.operator));
    c.send({ type: 'subscribe', id: 'watch' });
    await c.next((f) => f.type === 'subscribed');
    await postEvents(d.url, d.tokens.hook, makeEvent({ session: 'pos', epoch: 1, seq: 9 }));
    await c.until((x) => x.events().length === 1);
    await d.close();
    const closing = await c.next((f) => f.type === 'closing');
    expect(closing).toEqual({
      type: 'closing',
      reason: 'shutting-down',
      delivered: [{ sub: 'watch', session: 'pos', epoch: 1, seq: 9 }],
    });
    await c.untilClosed();
  });
});

describe('WS emitters', () => {
  it('ingests events from an emitter connection like POSTed ones and fans them out', async () => {
    d = await startTestDaemon();
    const watcher = track(await WsClient.hello(d.url, d.tokens.operator));
    watcher.send({ type: 'subscribe', id: 'w' });
    await watcher.next((f) => f.type === 'subscribed');
    const emitter = track(
      await WsClient.hello(d.url, d.tokens.hook, {
        role: 'emitter',
        identity: { agent: 'tester' },
      }),
    );
    const events = sessionEvents('from-ws', 3);
    for (const e of events) emitter.send(e);
    await watcher.until((x) => x.events().length === 3);
    expect(watcher.events()).toEqual(events);
    expect(await replaySession(d.url, d.tokens.operator, 'from-ws')).toEqual(events);
  });

  it('answers an invalid event with an invalid-event error frame and keeps the connection', async () => {
    d = await startTestDaemon();
    const emitter = track(
      await WsClient.hello(d.url, d.tokens.hook, {
        role: 'emitter',
        identity: { agent: 'tester' },
      }),
    );
    const bad = makeEvent({ seq: -1 });
    emitter.send(bad);
    expect(await emitter.next((f) => f.type === 'error')).toMatchObject({
      code: 'invalid-event',
      id: bad.id,
    });
    await emitter.sync();
  });

  it('lists live claims in the roster with the declarations verbatim and refuses an emitter-role roster request in-band', async () => {
    d = await startTestDaemon();
    const control = { accepts: ['control.pause'], ack_window_ms: 5000, vendorflag: true };
    const emitter = track(
      await WsClient.hello(d.url, d.tokens.hook, {
        role: 'emitter',
        identity: { agent: 'tester', instance: 'host/1' },
        capabilities: { control, emits: ['progress'] },
      }),
    );
    emitter.send(makeEvent({ session: 'claimed' }));
    emitter.send({ type: 'roster', id: 'mine' });
    expect(await emitter.next((f) => f.type === 'error' && f.id === 'mine')).toMatchObject({
      code: 'unauthorized',
    });
    await emitter.sync();
    const consumer = track(await WsClient.hello(d.url, d.tokens.operator));
    consumer.send({ type: 'roster', id: 'r-1' });
    const roster = await consumer.next((f) => f.type === 'roster');
    expect(roster).toEqual({
      type: 'roster',
      id: 'r-1',
      entries: [
        { session: 'claimed', agent: 'tester', instance: 'host/1', control, emits: ['progress'] },
      ],
    });
    emitter.close();
    await emitter.untilClosed();
    consumer.send({ type: 'roster', id: 'r-2' });
    await consumer.until((x) => x.frames.some((f) => f.type === 'roster' && f.id === 'r-2'));
    // The close may be processed after the reply; ask until the claim is gone.
    let entries = (consumer.frames.find((f) => f.id === 'r-2') as { entries: unknown[] }).entries;
    for (let i = 3; entries.length > 0; i++) {
      consumer.send({ type: 'roster', id: `r-${i}` });
      entries = (
        (await consumer.next((f) => f.type === 'roster' && f.id === `r-${i}`)) as {
          entries: unknown[];
        }
      ).entries;
    }
    expect(entries).toEqual([]);
  });
});
