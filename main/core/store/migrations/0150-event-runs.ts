/**
 * Where each session run is (store/session-runs.ts): a run is a copy of consecutive rows of one
 * session (in its session order) written as one block to a segment file beside the database, so a
 * replay of the session reads a block of rows instead of one table page per row. A row here names
 * the run's first and last ordering keys (with the row number, as in `events_session_order`), how
 * many rows it copies, two fingerprints of their row numbers (a replay checks them against the
 * session-order index before it trusts the block), and the block's segment, offset and length.
 */
import type { Migration } from './migration';

/** Creates `event_runs` and its indexes. */
export const eventRunsMigration: Migration = {
  version: 150,
  name: 'event-runs',
  up(db) {
    db.exec(`
      CREATE TABLE event_runs (
        id      INTEGER PRIMARY KEY,
        session TEXT    NOT NULL,
        f_epoch INTEGER NOT NULL,
        f_seq   INTEGER NOT NULL,
        f_tie   INTEGER NOT NULL,
        f_n     INTEGER NOT NULL,
        l_epoch INTEGER NOT NULL,
        l_seq   INTEGER NOT NULL,
        l_tie   INTEGER NOT NULL,
        l_n     INTEGER NOT NULL,
        rows    INTEGER NOT NULL,
        sum_n   INTEGER NOT NULL,
        fp      INTEGER NOT NULL,
        segment INTEGER NOT NULL,
        at      INTEGER NOT NULL,
        bytes   INTEGER NOT NULL
      );
      CREATE INDEX event_runs_session ON event_runs (session, l_epoch, l_seq, l_tie, l_n);
      CREATE INDEX event_runs_segment ON event_runs (segment, bytes);
    `);
  },
};
