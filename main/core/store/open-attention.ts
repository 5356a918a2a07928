/**
 * The attention requests a session's stored events left open: `attention.requested` events that no
 * `attention.resolved` or `attention.timeout` of the same source closes (AEP-0002 §7). After a crash
 * the daemon that could have answered them is gone, so the restart closes them (dismissed) before
 * anything else it records for the session. Reads by the session index only.
 */
import type { Database } from 'better-sqlite3';

/** Builds the lookup: the ids of the session's open requests, in stream order. */
export function openAttentionLookup(db: Database): (source: string, session: string) => string[] {
  const stmt = db.prepare<[string, string], { id: string }>(`
    SELECT s.id AS id FROM events s
    WHERE s.session = ? AND s.source = ? AND s.type = 'attention.requested'
      AND NOT EXISTS (SELECT 1 FROM events t
                      WHERE t.session = s.session AND t.source = s.source AND t.type IN ('attention.resolved', 'attention.timeout')
                        AND json_extract(t.json, '$.subject') = s.id)
    ORDER BY s.ord_epoch, s.ord_seq, s.ord_tie, s.n`);
  return (source, session) => stmt.all(session, source).map((r) => r.id);
}
