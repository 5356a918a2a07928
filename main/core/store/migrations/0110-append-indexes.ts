/**
 * Indexes that the hook path appends to instead of writing all over (measured: the pages each
 * group commit writes to the WAL, per b-tree):
 * - the event dedupe key becomes `(id, source)`: the same uniqueness (`ON CONFLICT (source, id)`
 *   still names it), but led by the id, which our emitters draw as time-ordered ULIDs, so new
 *   entries land on the index's last page. Led by the source, which is one per session, every
 *   session of a commit had its own insertion page (7 of the 19 pages a commit wrote at
 *   concurrency 16);
 * - `sessions_state_seen (state, last_seen_ms)` goes: `sessions_seen (last_seen_ms, source,
 *   session)` answers the live and stale-session reads as well (a range of it, state filtered),
 *   and every hook's last-seen refresh rewrote a page of each.
 */
import type { Migration } from './migration';

/** Swaps the event dedupe index's column order and drops the redundant sessions index. */
export const appendIndexesMigration: Migration = {
  version: 110,
  name: 'append-indexes',
  up(db) {
    db.exec(`
      DROP INDEX events_source_id;
      CREATE UNIQUE INDEX events_id_source ON events (id, source);
      DROP INDEX sessions_state_seen;
    `);
  },
};
