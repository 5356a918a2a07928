import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  http,
  makeCommand,
  makeEvent,
  postEvents,
  replayAll,
  replaySession,
  sessionEvents,
  SseClient,
  startTestDaemon,
  type TestDaemon,
} from './harness';

let d: TestDaemon;
beforeEach(async () => {
  d = await startTestDaemon({ relayLimits: { maxBodyBytes: 64 * 1024, maxBatchEvents: 50 } });
});
afterEach(async () => {
  await d.stop();
});

describe('POST /events', () => {
  it('admits a single event and answers 202 only once it is replayable from the store', async () => {
    const event = makeEvent({ session: 'one' });
    const reply = await postEvents(d.url, d.tokens.hook, event);
    expect(reply.status).toBe(202);
    expect(reply.json).toEqual({ accepted: 1, duplicates: 0 });
    expect(await replaySession(d.url, d.tokens.operator, 'one')).toEqual([event]);
  });

  it('admits an NDJSON batch in order', async () => {
    const events = sessionEvents('batch', 20);
    const reply = await postEvents(d.url, d.tokens.hook, events);
    expect(reply.status).toBe(202);
    expect((await replaySession(d.url, d.tokens.operator, 'batch')).map((e) => e.id)).toEqual(
      events.map((e) => e.id),
    );
  });

  it('stores the posted JSON text byte-identically', async () => {
    const text =
      '{"aep":"0.1","id":"01JBYTES0000000000000000001","type":"progress.status","time":"2026-07-03T10:15:04.221Z","source":"aep://t/b","agent":"t","session":"bytes","seq":1,  "epoch":0}';
    const reply = await http(d.url, {
      method: 'POST',
      path: '/events',
      headers: {
        Authorization: `Bearer ${d.tokens.hook}`,
        'AEP-Version': '0.1',
        'Content-Type': 'application/json',
      },
      body: text,
    });
    expect(reply.status).toBe(202);
    const from = encodeURIComponent(JSON.stringify([{ session: 'bytes', epoch: 0, seq: 0 }]));
    const sse = await SseClient.open(d.url, `/stream?from=${from}&live=0`, {
      Authorization: `Bearer ${d.tokens.operator}`,
    });
    await sse.untilEnded();
    expect(sse.messages.find((m) => m.data !== undefined)?.data).toBe(text);
  });

  it('answers 426 with the supported versions when AEP-Version is missing or unsupported', async () => {
    for (const headers of [{ 'AEP-Version': '' }, { 'AEP-Version': '1.0' }]) {
      const reply = await postEvents(d.url, d.tokens.hook, makeEvent(), headers);
      expect(reply.status).toBe(426);
      expect(reply.json).toEqual({ versions: ['0.1'] });
    }
    const noHeader = await http(d.url, {
      method: 'POST',
      path: '/events',
      headers: { Authorization: `Bearer ${d.tokens.hook}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(makeEvent()),
    });
    expect(noHeader.status).toBe(426);
    expect(noHeader.json).toEqual({ versions: ['0.1'] });
  });

  it('answers 415 for a content type other than JSON or NDJSON', async () => {
    const reply = await http(d.url, {
      method: 'POST',
      path: '/events',
      headers: {
        Authorization: `Bearer ${d.tokens.hook}`,
        'AEP-Version': '0.1',
        'Content-Type': 'text/plain',
      },
      body: JSON.stringify(makeEvent()),
    });
    expect(reply.status).toBe(415);
    expect((reply.json as { error: string }).error).toBe('unsupported-media-type');
  });

  it('rejects an invalid single event with 400 invalid-event and a detail naming the rule', async () => {
    const reply = await postEvents(d.url, d.tokens.hook, makeEvent({ seq: undefined }));
    expect(reply.status).toBe(400);
    const body = reply.json as { error: string; detail: string };
    expect(body.error).toBe('invalid-event');
    expect(body.detail).toMatch(/seq/);
  });

  it('rejects a batch whole, naming the first failing line, and admits none of it', async () => {
    const events = sessionEvents('whole', 5);
    const lines = events.map((e) => JSON.stringify(e));
    lines[3] = JSON.stringify({ ...events[3], time: 'yesterday' });
    const reply = await http(d.url, {
      method: 'POST',
      path: '/events',
      headers: {
        Authorization: `Bearer ${d.tokens.hook}`,
        'AEP-Version': '0.1',
        'Content-Type': 'application/x-ndjson',
      },
      body: lines.join('\n'),
    });
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: 'invalid-event', index: 3, line: 4 });
    expect(await replaySession(d.url, d.tokens.operator, 'whole')).toEqual([]);
  });

  it('answers 413 for an oversize body and for a batch over the event cap', async () => {
    const big = makeEvent({ data: { message: 'x'.repeat(70 * 1024) } });
    const oversize = await postEvents(d.url, d.tokens.hook, big);
    expect(oversize.status).toBe(413);
    expect((oversize.json as { error: string }).error).toBe('payload-too-large');
    const tooMany = await postEvents(d.url, d.tokens.hook, sessionEvents('many', 51));
    expect(tooMany.status).toBe(413);
    expect((tooMany.json as { error: string }).error).toBe('too-many-events');
    expect(await replaySession(d.url, d.tokens.operator, 'many')).toEqual([]);
  });

  it('refuses control commands, which flow only on authenticated WebSocket connections', async () => {
    const reply = await postEvents(d.url, d.tokens.operator, makeCommand('s1', 'control.pause'));
    expect(reply.status).toBe(403);
    expect((reply.json as { error: string }).error).toBe('control-not-allowed');
    expect(await replayAll(d.url, d.tokens.operator)).toEqual([]);
  });

  it('dedupes admission on (source, id) but forwards a redelivery to live subscribers', async () => {
    const sse = await SseClient.open(d.url, '/stream', {
      Authorization: `Bearer ${d.tokens.operator}`,
    });
    const event = makeEvent({ session: 'dup' });
    expect((await postEvents(d.url, d.tokens.hook, event)).json).toEqual({
      accepted: 1,
      duplicates: 0,
    });
    expect((await postEvents(d.url, d.tokens.hook, event)).json).toEqual({
      accepted: 1,
      duplicates: 1,
    });
    await sse.until((c) => c.events().length === 2);
    expect(sse.events().map((e) => e.id)).toEqual([event.id, event.id]);
    expect(await replaySession(d.url, d.tokens.operator, 'dup')).toEqual([event]);
    sse.close();
  });
});

describe('discovery', () => {
  it('serves the same discovery document at GET /events and /.well-known/aep with the implemented capabilities', async () => {
    const a = await http(d.url, {
      path: '/events',
      headers: { Authorization: `Bearer ${d.tokens.hook}` },
    });
    const b = await http(d.url, {
      path: '/.well-known/aep',
      headers: { Authorization: `Bearer ${d.tokens.operator}` },
    });
    expect(a.status).toBe(200);
    expect(a.headers['content-type']).toMatch(/^application\/json/);
    expect(a.json).toEqual(b.json);
    expect(a.json).toMatchObject({
      aep: ['0.1'],
      endpoints: { events: '/events', stream: '/stream', socket: '/socket' },
      capabilities: {
        filters: ['attr-match'],
        replay: { buffer: 10_000, all: true },
        roster: {},
        control: { accepts: [] },
      },
    });
    expect((a.json as { capabilities: { capture: string[] } }).capabilities.capture).toContain(
      'metadata',
    );
  });
});
