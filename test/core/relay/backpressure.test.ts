import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import {
  makeEvent,
  postEvents,
  SseClient,
  startTestDaemon,
  WsClient,
  type TestDaemon,
} from './harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

const limits = { softBytes: 32 * 1024, hardBytes: 128 * 1024 };
const padded = (severity: string): AepEvent =>
  makeEvent({
    session: 'flood',
    severity,
    capture: 'full',
    data: { message: 'x'.repeat(8 * 1024) },
  });

/** Posts `count` 8 KiB events of one severity: far more than the loopback socket buffers hold. */
async function flood(count: number, severity: string): Promise<AepEvent[]> {
  const all: AepEvent[] = [];
  for (let i = 0; i < count; i += 400) {
    const batch = Array.from({ length: 400 }, () => padded(severity));
    all.push(...batch);
    expect((await postEvents(d.url, d.tokens.hook, batch)).status).toBe(202);
  }
  return all;
}

/** Every notice-or-above event up to `lastSeq` was delivered: nothing important vanished silently. */
function expectNoSilentNoticeLoss(sent: AepEvent[], received: AepEvent[], lastSeq: number): void {
  const got = new Set(received.map((e) => e.id));
  const missing = sent.filter((e) => (e.seq ?? 0) <= lastSeq && !got.has(e.id));
  expect(missing).toEqual([]);
}

describe('slow consumers', () => {
  it('drops info toward a stalled WS consumer and disconnects it with a closing frame rather than drop a notice', async () => {
    d = await startTestDaemon({ relayLimits: limits });
    const c = await WsClient.hello(d.url, d.tokens.operator);
    c.send({ type: 'subscribe', id: 'slow' });
    await c.next((f) => f.type === 'subscribed');
    c.ws.pause();
    const infos = await flood(2_400, 'info');
    const notices = await flood(2_400, 'notice');
    c.ws.resume();
    await c.untilClosed();
    const received = c.events();
    const infoIds = new Set(infos.map((e) => e.id));
    expect(received.filter((e) => infoIds.has(e.id)).length).toBeLessThan(infos.length);
    const closing = c.frames.find((f) => f.type === 'closing') as {
      reason: string;
      delivered: { sub: string; session: string; epoch: number; seq: number }[];
    };
    expect(closing.reason).toMatch(/slow-consumer/);
    const last = received[received.length - 1];
    // The positions tell the consumer exactly where to resume.
    expect(closing.delivered).toEqual([{ sub: 'slow', session: 'flood', epoch: 0, seq: last.seq }]);
    expect(last.seq).toBeLessThan(notices[notices.length - 1].seq!);
    expectNoSilentNoticeLoss(notices, received, last.seq!);
    expect(d.context.relay.counts().subscribers).toBe(0);
  });

  it('ends a stalled SSE stream rather than drop a notice event', async () => {
    d = await startTestDaemon({ relayLimits: limits });
    const sse = await SseClient.open(d.url, '/stream', {
      Authorization: `Bearer ${d.tokens.operator}`,
    });
    await sse.until((c) => c.comments().includes('connected'));
    const res = (sse as unknown as { req: { res?: { pause(): void; resume(): void } } }).req.res!;
    res.pause();
    const infos = await flood(2_400, 'info');
    const warnings = await flood(2_400, 'warning');
    res.resume();
    await sse.untilEnded();
    const received = sse.events();
    const infoIds = new Set(infos.map((e) => e.id));
    expect(received.filter((e) => infoIds.has(e.id)).length).toBeLessThan(infos.length);
    expect(sse.comments().some((c) => c.startsWith('closing slow-consumer'))).toBe(true);
    const last = received[received.length - 1];
    expect(last.seq).toBeLessThan(warnings[warnings.length - 1].seq!);
    expectNoSilentNoticeLoss(warnings, received, last.seq!);
  });
});

describe('replay to a consumer slower than the history', () => {
  it('delivers a long replay completely and in order over WS and SSE, pacing on the socket instead of dropping', async () => {
    d = await startTestDaemon({ relayLimits: { softBytes: 16 * 1024, hardBytes: 64 * 1024 } });
    const history = Array.from({ length: 1_500 }, (_, i) =>
      makeEvent({ session: 'long', seq: i + 1, severity: 'debug' }),
    );
    for (let i = 0; i < history.length; i += 500)
      await postEvents(d.url, d.tokens.hook, history.slice(i, i + 500));
    const ws = await WsClient.hello(d.url, d.tokens.operator);
    ws.send({ type: 'subscribe', id: 'r', from: [{ session: 'long', epoch: 0, seq: 0 }] });
    await ws.until((c) => c.events().length === history.length);
    expect(ws.events().map((e) => e.seq)).toEqual(history.map((e) => e.seq));
    ws.close();
    const sse = await SseClient.open(
      d.url,
      `/stream?live=0&from=${encodeURIComponent(JSON.stringify([{ session: 'long', epoch: 0, seq: 0 }]))}`,
      {
        Authorization: `Bearer ${d.tokens.operator}`,
      },
    );
    await sse.untilEnded();
    expect(sse.events().map((e) => e.seq)).toEqual(history.map((e) => e.seq));
  });
});
