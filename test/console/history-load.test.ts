/**
 * The console's history loader: pages of GET /api/sessions/history into a session's log, each
 * page asked after the previous page's `next`, ending quietly on any failure or once the view let
 * the session go (the WS subscription that follows replays whatever is missing).
 */
import { describe, expect, test } from 'vitest';
import type { AepEvent } from '../../common/aep/envelope';
import type { HistoryPage, HistoryQuery } from '../../common/api';
import { err, ok } from '../../common/result';
import type { ApiCall } from '../../renderer/src/api/api-client';
import { EventLog } from '../../renderer/src/model/event-log';
import type { AepSocket } from '../../renderer/src/api/aep-socket';
import { loadHistory, loadTail } from '../../renderer/src/model/history-load';
import { SessionDetails } from '../../renderer/src/model/session-details';

const ev = (seq: number): AepEvent => ({ aep: '0.1', id: `h${seq}`, type: 'tool.requested', time: '2026-12-01T10:00:00.000Z', source: 'aep://test/h', agent: 'claude-code', session: 's', epoch: 0, seq, data: {} });

/** An /api whose history pages come from a list of held events, `size` per page. */
function pagedApi(held: AepEvent[], size: number, asked: HistoryQuery[], failAt = Infinity): ApiCall {
  return (async (route: string, q: HistoryQuery) => {
    if (route !== 'GET /api/sessions/history') return ok(null);
    asked.push(q);
    if (asked.length >= failAt) return err('network', 'the daemon did not answer');
    if (q.tail !== undefined) {
      const events = held.slice(-q.tail);
      return ok({ session: 's', events, next: null, earlier: held.length > events.length } satisfies HistoryPage);
    }
    const rest = held.filter((e) => q.afterSeq === undefined || e.seq! > q.afterSeq);
    const events = rest.slice(0, size);
    const last = events[events.length - 1];
    const page: HistoryPage = { session: 's', events, next: rest.length > size && last ? { epoch: 0, seq: last.seq! } : null };
    return ok(page);
  }) as unknown as ApiCall;
}

describe('history loader', () => {
  test('reads every page after what the log holds, one update per page', async () => {
    const held = Array.from({ length: 25 }, (_, i) => ev(i + 1));
    const log = new EventLog();
    log.add(held[0]);
    log.add(held[1]);
    const asked: HistoryQuery[] = [];
    let pages = 0;
    const added = await loadHistory(pagedApi(held, 10, asked), 's', log, { wanted: () => true, page: () => pages++ });
    expect(added).toBe(23);
    expect(log.events.map((e) => e.seq)).toEqual(held.map((e) => e.seq));
    expect(asked.map((q) => q.afterSeq)).toEqual([2, 12, 22]);
    expect(pages).toBe(3);
  });

  test('stops once the session is let go, and on a failure, keeping what arrived', async () => {
    const held = Array.from({ length: 30 }, (_, i) => ev(i + 1));
    const closed = new EventLog();
    let open = true;
    await loadHistory(pagedApi(held, 10, []), 's', closed, { wanted: () => open, page: () => (open = false) });
    expect(closed.size).toBe(10);
    const failed = new EventLog();
    const asked: HistoryQuery[] = [];
    const added = await loadHistory(pagedApi(held, 10, asked, 2), 's', failed, { wanted: () => true, page: () => {} });
    expect(added).toBe(10);
    expect(asked).toHaveLength(2);
  });

  test('reads the newest events first, and says whether older ones are held', async () => {
    const held = Array.from({ length: 25 }, (_, i) => ev(i + 1));
    const log = new EventLog();
    const tail = await loadTail(pagedApi(held, 10, []), 's', log, { wanted: () => true, page: () => {} }, 5);
    expect(tail).toEqual({ ok: true, earlier: true });
    expect(log.events.map((e) => e.seq)).toEqual([21, 22, 23, 24, 25]);
    const short = new EventLog();
    expect(await loadTail(pagedApi(held.slice(0, 3), 10, []), 's', short, { wanted: () => true, page: () => {} }, 5)).toEqual({ ok: true, earlier: false });
    expect(short.size).toBe(3);
    // A daemon that ignores `tail` answers a page from the start: not taken for a tail.
    const ignoring = (async () => ok({ session: 's', events: held.slice(0, 10), next: { epoch: 0, seq: 10 } })) as unknown as ApiCall;
    const none = new EventLog();
    expect((await loadTail(ignoring, 's', none, { wanted: () => true, page: () => {} })).ok).toBe(false);
    expect(none.size).toBe(0);
  });
});

/** Records what the details subscribe, resolving each call's `from` at once. */
function recordingSocket(subscribed: { session: unknown; from: unknown }[]): () => AepSocket {
  const socket = {
    subscribe: (_id: string, spec: { filter: { session: unknown }; from: () => unknown }) => subscribed.push({ session: spec.filter.session, from: spec.from() }),
    unsubscribe: () => {},
  };
  return () => socket as unknown as AepSocket;
}

const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('session details', () => {
  test('a fresh session shows its tail first, then the whole history in one swap, then subscribes after it', async () => {
    const held = Array.from({ length: 1200 }, (_, i) => ev(i + 1));
    const asked: HistoryQuery[] = [];
    const subscribed: { session: unknown; from: unknown }[] = [];
    const sizes: number[] = [];
    const details: SessionDetails = new SessionDetails({ api: pagedApi(held, 1000, asked), socket: recordingSocket(subscribed), changed: () => sizes.push(details.logs.get('s')?.size ?? 0) });
    const shown = details.open('s');
    for (let i = 0; i < 10 && subscribed.length === 0; i++) await settled();
    expect(asked[0]).toEqual({ session: 's', tail: 500 });
    expect(asked[1]).toEqual({ session: 's' });
    expect(sizes).toContain(500);
    expect(sizes[sizes.length - 1]).toBe(1200);
    const whole = details.logs.get('s')!;
    expect(whole).not.toBe(shown);
    expect(whole.events.map((e) => e.seq)).toEqual(held.map((e) => e.seq));
    expect(whole.reorders).toBeGreaterThan(shown.reorders);
    expect(subscribed).toEqual([{ session: 's', from: [{ session: 's', epoch: 0, seq: 1200 }] }]);
  });

  test('a whole read cut short resumes where it stopped, before the tail, so nothing is skipped', async () => {
    const held = Array.from({ length: 1200 }, (_, i) => ev(i + 1));
    const subscribed: { session: unknown; from: unknown }[] = [];
    // The tail and the first page from the start arrive, the second page from the start fails.
    const details = new SessionDetails({ api: pagedApi(held, 1000, [], 3), socket: recordingSocket(subscribed), changed: () => {} });
    details.open('s');
    for (let i = 0; i < 10 && subscribed.length === 0; i++) await settled();
    expect(details.logs.get('s')!.size).toBe(1200);
    expect(subscribed).toEqual([{ session: 's', from: [{ session: 's', epoch: 0, seq: 1000 }] }]);
  });
});
