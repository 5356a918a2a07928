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
import { loadHistory } from '../../renderer/src/model/history-load';

const ev = (seq: number): AepEvent => ({ aep: '0.1', id: `h${seq}`, type: 'tool.requested', time: '2026-12-01T10:00:00.000Z', source: 'aep://test/h', agent: 'claude-code', session: 's', epoch: 0, seq, data: {} });

/** An /api whose history pages come from a list of held events, `size` per page. */
function pagedApi(held: AepEvent[], size: number, asked: HistoryQuery[], failAt = Infinity): ApiCall {
  return (async (route: string, q: HistoryQuery) => {
    if (route !== 'GET /api/sessions/history') return ok(null);
    asked.push(q);
    if (asked.length >= failAt) return err('network', 'the daemon did not answer');
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
});
