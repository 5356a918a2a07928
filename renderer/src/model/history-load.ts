/**
 * Reads a session's held history from `GET /api/sessions/history` in large pages (one response
 * per 10,000 events instead of a WS frame each) into its event log, one store update per page;
 * a freshly opened session reads its newest events first (`loadTail`), what its timeline shows.
 */
import type { ApiCall } from '../api/api-client';
import type { EventLog, LogPosition } from './event-log';

/** What the loader reports per page. */
export interface HistoryLoadHooks {
  /** False once the session was closed: the load stops. */
  readonly wanted: () => boolean;
  /** After each page was added. */
  readonly page: (exhausted: LogPosition | undefined) => void;
  /** Once the last page arrived (the log holds the history through its end). */
  readonly complete?: () => void;
}

/** Events of the first page a freshly opened session shows: its newest ones. */
export const TAIL_EVENTS = 500;

/** What a tail read found. */
export interface TailLoad {
  /** False when the daemon answered no tail page (an older daemon, a failure). */
  readonly ok: boolean;
  /** True when the session holds events before the tail (to be read from the start). */
  readonly earlier: boolean;
}

/**
 * Adds the session's newest `tail` events to an empty `log` in one request, so a long session
 * shows the rows it opens on (the end of its timeline) before the rest is read.
 */
export async function loadTail(api: ApiCall, session: string, log: EventLog, hooks: HistoryLoadHooks, tail = TAIL_EVENTS): Promise<TailLoad> {
  const r = await api('GET /api/sessions/history', { session, tail });
  // A daemon that ignores `tail` answers a page from the start (with `earlier` absent): not a tail.
  if (!r.ok || !hooks.wanted() || !Array.isArray(r.value?.events) || typeof r.value.earlier !== 'boolean') return { ok: false, earlier: true };
  for (const event of r.value.events) log.add(event);
  hooks.page(r.value.exhausted);
  return { ok: true, earlier: r.value.earlier };
}

/**
 * Adds the history after what `log` holds, page by page. A daemon without the route, or any
 * failure, ends it early and quietly: the subscription that follows replays what is missing.
 * Resolves with the number of events added.
 */
export async function loadHistory(api: ApiCall, session: string, log: EventLog, hooks: HistoryLoadHooks): Promise<number> {
  let after = log.last;
  let added = 0;
  for (;;) {
    const r = await api('GET /api/sessions/history', { session, ...(after ? { afterEpoch: after.epoch, afterSeq: after.seq } : {}) });
    if (!r.ok || !hooks.wanted() || !Array.isArray(r.value?.events)) return added;
    for (const event of r.value.events) if (log.add(event)) added++;
    hooks.page(r.value.exhausted);
    if (!r.value.next || r.value.events.length === 0) {
      if (!r.value.next) hooks.complete?.();
      return added;
    }
    after = r.value.next;
  }
}
