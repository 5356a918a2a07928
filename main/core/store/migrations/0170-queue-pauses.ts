/**
 * Held queues: a session whose operator stopped the running turn keeps its queued messages until
 * the operator resumes or sends (one row per held session; the row goes when the queue flows).
 */
import type { Migration } from './migration';

/** Adds the `queue_pauses` table. */
export const queuePausesMigration: Migration = {
  version: 170,
  name: 'queue-pauses',
  up(db) {
    db.exec(`
      CREATE TABLE queue_pauses (
        session TEXT PRIMARY KEY,
        cause TEXT,
        paused_at_ms INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};
