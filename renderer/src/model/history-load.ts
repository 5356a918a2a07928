/**
 * Reads a session's held history from `GET /api/sessions/history` in large pages (one response
 * per 10,000 events instead of a WS frame each) into its event log, one store update per page.
 */
import type { ApiCall } from '../api/api-client';
import type { EventLog, LogPosition } from './event-log';

/** What the loader reports per page. */
export interface HistoryLoadHooks {
  /** False once the session was closed: the load stops. */
  readonly wanted: () => boolean;
  /** After each page was added. */
  readonly page: (exhausted: LogPosition | undefined) => void;
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
    if (!r.value.next || r.value.events.length === 0) return added;
    after = r.value.next;
  }
}
