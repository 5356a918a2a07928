/**
 * Whether a session's rows, read in row-number order, come in its session order (migration 0010).
 * They do unless an event was admitted below a position the session already held (a backfill, an
 * emitter resending out of order): `event_sessions.disordered` is then set, and stays set while the
 * session holds events. Replay-all reads the sessions that are not disordered in one pass over the
 * table in row-number order (`EventReplay.replayHeld`), which reads each table page once instead of
 * one b-tree descent per row per session; the disordered ones are replayed a session at a time.
 *
 * Rows already held are checked here: a session is disordered when, read in its session order,
 * some row has a lower row number than the row before it (a later admit below a held position).
 * That reads only the session-order index (about 2 s per million rows, once).
 */
import type { Migration } from './migration';

/** Adds `event_sessions.disordered` and sets it for the sessions held out of row order. */
export const sessionOrderMigration: Migration = {
  version: 120,
  name: 'session-order',
  up(db) {
    db.exec(`
      ALTER TABLE event_sessions ADD COLUMN disordered INTEGER NOT NULL DEFAULT 0;
      UPDATE event_sessions SET disordered = 1 WHERE session IN (
        SELECT DISTINCT session FROM (
          SELECT session, n,
                 LAG(n) OVER (PARTITION BY session ORDER BY ord_epoch, ord_seq, ord_tie, n) AS prev_n
          FROM events
        ) WHERE n < prev_n
      );
    `);
  },
};
