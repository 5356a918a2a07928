/**
 * GET /api/sessions/history: one session's stored events after a position, in session order, in
 * pages of up to 10,000 events. It sends what a WS subscription's replay of that session sends
 * (the stored text, verbatim: the console subscribes without a lower ceiling) but as one HTTP
 * response per page, so opening a long session costs one request and one JSON parse in the
 * console instead of a frame per event. The console then subscribes over WS after `next`'s
 * position for the live tail. With `tail`, one page of the session's newest events instead, so
 * a long session's timeline shows what it opens on before the older pages are read.
 */
import type { HistoryQuery } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import type { DaemonContext } from '../daemon-context';
import type { EventStore, StorePosition } from '../store/event-store';
import { ApiReply, type ApiHandlers } from './index';

/** Events per page when the query names none, and the most served. */
export const HISTORY_MAX_LIMIT = 10_000;

const isCount = (n: number, min: number): boolean => Number.isSafeInteger(n) && n >= min;

/** Validates the query string of a history request. */
export function parseHistoryQuery(raw: unknown): Result<HistoryQuery> {
  const q = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (typeof q.session !== 'string' || q.session === '')
    return err('bad-request', 'session must be a non-empty session id');
  const out: { session: string; afterEpoch?: number; afterSeq?: number; limit?: number; tail?: number } = {
    session: q.session,
  };
  if ((q.afterEpoch === undefined) !== (q.afterSeq === undefined))
    return err('bad-request', 'afterEpoch and afterSeq go together (the `next` of a previous page)');
  if (q.afterEpoch !== undefined) {
    const epoch = Number(q.afterEpoch);
    const seq = Number(q.afterSeq);
    if (!isCount(epoch, 0) || !isCount(seq, 0))
      return err('bad-request', 'afterEpoch and afterSeq must be integers of at least 0');
    out.afterEpoch = epoch;
    out.afterSeq = seq;
  }
  if (q.limit !== undefined) {
    const n = Number(q.limit);
    if (!isCount(n, 1) || n > HISTORY_MAX_LIMIT)
      return err('bad-request', `limit must be an integer from 1 to ${HISTORY_MAX_LIMIT}`);
    out.limit = n;
  }
  if (q.tail !== undefined) {
    const n = Number(q.tail);
    if (!isCount(n, 1) || n > HISTORY_MAX_LIMIT)
      return err('bad-request', `tail must be an integer from 1 to ${HISTORY_MAX_LIMIT}`);
    if (out.afterEpoch !== undefined || out.limit !== undefined)
      return err('bad-request', 'tail goes without afterEpoch/afterSeq and limit');
    out.tail = n;
  }
  return ok(out);
}

const after = (q: HistoryQuery): StorePosition | null =>
  q.afterEpoch === undefined || q.afterSeq === undefined
    ? null
    : { epoch: q.afterEpoch, seq: q.afterSeq };

const before = (a: StorePosition, b: StorePosition): boolean =>
  a.epoch !== b.epoch ? a.epoch < b.epoch : a.seq < b.seq;

/**
 * One page as JSON text (the HistoryPage shape), built from the stored event text without
 * parsing it. The page ends at a position boundary: every row of its last position (a sequenced
 * event and the seq-less ones anchored to it) is in it, so resuming after that position loses
 * nothing (seq-less rows anchored there come again, and the console's log drops them as
 * duplicates).
 */
export function historyPageJson(store: EventStore, q: HistoryQuery): string {
  if (q.tail !== undefined) return tailPageJson(store, q.session, q.tail);
  const limit = q.limit ?? HISTORY_MAX_LIMIT;
  const from = after(q);
  const parts: string[] = [];
  let last: StorePosition | null = null;
  let more = false;
  outer: for (const page of store.replayPages(q.session, from)) {
    for (const row of page) {
      if (parts.length >= limit && last !== null && (row.epoch !== last.epoch || row.seq !== last.seq)) {
        more = true;
        break outer;
      }
      parts.push(row.json);
      last = { epoch: row.epoch, seq: row.seq };
    }
  }
  // Asked from the start or after a position retention has deleted past: say where it begins.
  let exhausted: StorePosition | null = null;
  const trimmed = store.trimmedThrough(q.session);
  if (trimmed !== null && (from === null || before(from, trimmed)))
    exhausted = store.earliest(q.session);
  const next = more && last !== null ? JSON.stringify(last) : 'null';
  return `{"session":${JSON.stringify(q.session)},"events":[${parts.join(',')}],"next":${next}${
    exhausted ? `,"exhausted":${JSON.stringify(exhausted)}` : ''
  }}`;
}

/**
 * The session's last `tail` events as one page (what a long session's timeline shows first),
 * starting on a position boundary: every row of its first position is in it. Where it starts is
 * found on the events index (`EventStore.tailStart`), so it reads only the rows it sends.
 * `earlier` says whether older events are held, to be read from the start with ordinary pages.
 */
function tailPageJson(store: EventStore, session: string, tail: number): string {
  const from = store.tailStart(session, tail);
  const parts: string[] = [];
  for (const page of store.replayPages(session, from)) for (const row of page) parts.push(row.json);
  // The whole retained history fits and retention trimmed its start: say where it begins.
  const exhausted = from === null && store.trimmedThrough(session) !== null ? store.earliest(session) : null;
  return `{"session":${JSON.stringify(session)},"events":[${parts.join(',')}],"next":null,"earlier":${from !== null}${
    exhausted ? `,"exhausted":${JSON.stringify(exhausted)}` : ''
  }}`;
}

/** The history handler. */
export function historyApi(ctx: Pick<DaemonContext, 'eventStore'>): ApiHandlers {
  return {
    'GET /api/sessions/history': {
      parse: parseHistoryQuery,
      handle: (q) =>
        new ApiReply(200, historyPageJson(ctx.eventStore, q), 'application/json; charset=utf-8'),
    },
  };
}
