import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import {
  makeEvent,
  postEvents,
  sessionEvents,
  SseClient,
  startTestDaemon,
  type TestDaemon,
} from './harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

const auth = (): Record<string, string> => ({ Authorization: `Bearer ${d.tokens.operator}` });
const enc = (v: unknown): string => encodeURIComponent(JSON.stringify(v));

describe('GET /stream', () => {
  it('streams live events with LF-only framing, event:, id: session:epoch:seq and one data: line', async () => {
    d = await startTestDaemon();
    const sse = await SseClient.open(d.url, '/stream', auth());
    expect(sse.status).toBe(200);
    expect(sse.headers['content-type']).toMatch(/^text\/event-stream/);
    const event = makeEvent({
      session: 'live',
      epoch: 2,
      seq: 7,
      type: 'tool.started',
      subject: 'line\nbreak',
    });
    await postEvents(d.url, d.tokens.hook, event);
    await sse.until((c) => c.events().length === 1);
    const msg = sse.messages.find((m) => m.data !== undefined)!;
    expect(msg.raw).toBe(`event: tool.started\nid: live:2:7\ndata: ${JSON.stringify(event)}`);
    expect(sse.raw).not.toContain('\r');
    expect(sse.events()[0]).toEqual(event);
    sse.close();
  });

  it('gives agent-scoped events no id', async () => {
    d = await startTestDaemon();
    const sse = await SseClient.open(d.url, '/stream', auth());
    await postEvents(
      d.url,
      d.tokens.hook,
      makeEvent({ type: 'agent.heartbeat', session: undefined, seq: undefined, epoch: undefined }),
    );
    await sse.until((c) => c.events().length === 1);
    expect(sse.messages.find((m) => m.data !== undefined)!.id).toBeUndefined();
    sse.close();
  });

  it('applies the attr-match filter', async () => {
    d = await startTestDaemon();
    const sse = await SseClient.open(
      d.url,
      `/stream?filter=${enc({ severity: { gte: 'warning' } })}`,
      auth(),
    );
    const quiet = makeEvent({ severity: 'info' });
    const loud = makeEvent({ severity: 'error' });
    await postEvents(d.url, d.tokens.hook, [quiet, loud]);
    await sse.until((c) => c.events().length >= 1);
    const marker = makeEvent({ severity: 'critical' });
    await postEvents(d.url, d.tokens.hook, marker);
    await sse.until((c) => c.events().some((e) => e.id === marker.id));
    expect(sse.events().map((e) => e.id)).toEqual([loud.id, marker.id]);
    sse.close();
  });

  it('down-levels to the capture ceiling and never up-levels', async () => {
    d = await startTestDaemon();
    const sse = await SseClient.open(d.url, '/stream?capture=none', auth());
    const full = makeEvent({
      type: 'tool.started',
      capture: 'full',
      data: { tool: { name: 'Bash' }, input: { command: 'ls -la' } },
    });
    await postEvents(d.url, d.tokens.hook, full);
    await sse.until((c) => c.events().length === 1);
    const got = sse.events()[0];
    expect(got.capture).toBe('none');
    expect(JSON.stringify(got)).not.toContain('ls -la');
    sse.close();
  });

  it('replays from a position array before live delivery, strictly after each position', async () => {
    d = await startTestDaemon();
    const a = sessionEvents('a', 5);
    const b = sessionEvents('b', 3);
    await postEvents(d.url, d.tokens.hook, [...a, ...b]);
    const sse = await SseClient.open(
      d.url,
      `/stream?from=${enc([
        { session: 'a', epoch: 0, seq: 3 },
        { session: 'b', epoch: 0, seq: 0 },
      ])}`,
      auth(),
    );
    await sse.until((c) => c.events().length === 5);
    expect(sse.events().map((e) => e.id)).toEqual([a[3].id, a[4].id, b[0].id, b[1].id, b[2].id]);
    const later = makeEvent({ session: 'a', seq: 6 });
    await postEvents(d.url, d.tokens.hook, later);
    await sse.until((c) => c.events().length === 6);
    expect(sse.events()[5].id).toBe(later.id);
    expect(sse.comments().filter((c) => c.startsWith('replay-exhausted'))).toEqual([]);
    sse.close();
  });

  it('resumes from Last-Event-ID, and from takes precedence over it', async () => {
    d = await startTestDaemon();
    const events = sessionEvents('r:with:colons', 4);
    await postEvents(d.url, d.tokens.hook, events);
    const resumed = await SseClient.open(d.url, '/stream?live=0', {
      ...auth(),
      'Last-Event-ID': 'r:with:colons:0:2',
    });
    await resumed.untilEnded();
    expect(resumed.events().map((e) => e.id)).toEqual([events[2].id, events[3].id]);
    const both = await SseClient.open(
      d.url,
      `/stream?live=0&from=${enc([{ session: 'r:with:colons', epoch: 0, seq: 3 }])}`,
      {
        ...auth(),
        'Last-Event-ID': 'r:with:colons:0:0',
      },
    );
    await both.untilEnded();
    expect(both.events().map((e) => e.id)).toEqual([events[3].id]);
  });

  it('replays every held session with from=all and ends after the replay with live=0', async () => {
    d = await startTestDaemon();
    const x = sessionEvents('x', 2);
    const y = sessionEvents('y', 2);
    await postEvents(d.url, d.tokens.hook, [...x, ...y]);
    const sse = await SseClient.open(d.url, '/stream?from=all&live=0', auth());
    await sse.untilEnded();
    expect(
      sse
        .events()
        .map((e) => e.id)
        .sort(),
    ).toEqual([...x, ...y].map((e) => e.id).sort());
    expect(sse.comments().some((c) => c.startsWith('replay-exhausted'))).toBe(false);
  });

  it('replays from=all each session in its order, one held out of order included, every event once', async () => {
    d = await startTestDaemon();
    const x = sessionEvents('x', 5);
    const y = sessionEvents('y', 5);
    // y's last two arrive first: y is held out of row order, x is not.
    await postEvents(d.url, d.tokens.hook, [x[0], x[1], y[3], y[4], x[2], y[0], x[3], y[1], y[2], x[4]]);
    const sse = await SseClient.open(d.url, '/stream?from=all&live=0', auth());
    await sse.untilEnded();
    const got = sse.events();
    expect(got.map((e) => e.id).sort()).toEqual([...x, ...y].map((e) => e.id).sort());
    for (const session of ['x', 'y'])
      expect(got.filter((e) => e.session === session).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5]);
  });

  it('replays a long session in pages while events keep arriving: every event once, in order', async () => {
    d = await startTestDaemon();
    const long = sessionEvents('long', 4_200);
    for (let i = 0; i < 4_000; i += 500) await postEvents(d.url, d.tokens.hook, long.slice(i, i + 500));
    const path = `/stream?from=${enc([{ session: 'long', epoch: 0, seq: 0 }])}`;
    const sse = await SseClient.open(d.url, path, auth());
    // Writes while the replay runs: more of the session, and another session.
    for (let i = 4_000; i < 4_200; i += 50) {
      await postEvents(d.url, d.tokens.hook, [...long.slice(i, i + 50), makeEvent({ session: 'other' })]);
    }
    const longs = (c: SseClient): AepEvent[] => c.events().filter((e) => e.session === 'long');
    await sse.until((c) => longs(c).length >= 4_200);
    await postEvents(d.url, d.tokens.hook, makeEvent({ session: 'long', seq: 4_201 }));
    await sse.until((c) => longs(c).length === 4_201);
    expect(longs(sse).map((e) => e.seq)).toEqual(Array.from({ length: 4_201 }, (_, i) => i + 1));
    sse.close();
  });

  it('announces replay-exhausted with the earliest held position when the position predates retention', async () => {
    d = await startTestDaemon({ maxEventsPerSession: 3 });
    const events = sessionEvents('ret', 6);
    await postEvents(d.url, d.tokens.hook, events);
    const sse = await SseClient.open(
      d.url,
      `/stream?live=0&from=${enc([{ session: 'ret', epoch: 0, seq: 1 }])}`,
      auth(),
    );
    await sse.untilEnded();
    expect(sse.comments()).toContain('replay-exhausted ret 0:4');
    const first = sse.messages.findIndex((m) => m.comment?.startsWith('replay-exhausted'));
    const firstEvent = sse.messages.findIndex((m) => m.data !== undefined);
    expect(first).toBeLessThan(firstEvent);
    expect(sse.events().map((e) => e.seq)).toEqual([4, 5, 6]);
    // A position at or after the trimmed history is not exhausted.
    const fine = await SseClient.open(
      d.url,
      `/stream?live=0&from=${enc([{ session: 'ret', epoch: 0, seq: 3 }])}`,
      auth(),
    );
    await fine.untilEnded();
    expect(fine.comments().some((c) => c.startsWith('replay-exhausted'))).toBe(false);
  });

  it('sends : ping comments as a heartbeat', async () => {
    d = await startTestDaemon({ relayLimits: { pingIntervalMs: 20 } });
    const sse = await SseClient.open(d.url, '/stream', auth());
    await sse.until((c) => c.comments().includes('ping'));
    sse.close();
  });

  it('refuses malformed filter, capture, from, Last-Event-ID and live values with 400 JSON', async () => {
    d = await startTestDaemon({ relayLimits: { maxFromPositions: 2 } });
    const cases: [string, Record<string, string>, string][] = [
      [`/stream?filter=${enc({ data: 1 })}`, {}, 'invalid-filter'],
      ['/stream?filter=%7Bnot-json', {}, 'invalid-filter'],
      [`/stream?filter=${enc({ type: '*' })}`, {}, 'invalid-filter'],
      ['/stream?capture=everything', {}, 'invalid-capture'],
      ['/stream?from=yesterday', {}, 'invalid-filter'],
      [`/stream?from=${enc({ session: 's' })}`, {}, 'invalid-filter'],
      [`/stream?from=${enc([{ session: 's', epoch: -1, seq: 0 }])}`, {}, 'invalid-filter'],
      [
        `/stream?from=${enc([
          { session: 'a', epoch: 0, seq: 0 },
          { session: 'b', epoch: 0, seq: 0 },
          { session: 'c', epoch: 0, seq: 0 },
        ])}`,
        {},
        'limit-exceeded',
      ],
      ['/stream', { 'Last-Event-ID': 'no-position' }, 'invalid-filter'],
      ['/stream?live=maybe', {}, 'invalid-parameter'],
    ];
    for (const [path, headers, error] of cases) {
      const sse = await SseClient.open(d.url, path, { ...auth(), ...headers });
      await sse.untilEnded();
      expect(sse.status, path).toBe(400);
      expect(JSON.parse(sse.body).error, path).toBe(error);
    }
  });

  it('ends every stream with a final comment when the daemon shuts down', async () => {
    d = await startTestDaemon();
    const sse = await SseClient.open(d.url, '/stream', auth());
    await sse.until((c) => c.comments().includes('connected'));
    await d.close();
    await sse.untilEnded();
    expect(sse.comments()).toContain('shutting-down');
  });
});
