/**
 * How far each intake log has been consumed (intake-log.ts): the consumer writes the sequence of
 * the last record it processed in the same group commit as what it derived from the records, so
 * after a crash only the records past the mark are processed again, each once.
 */
import type { Migration } from './migration';

/** Adds the `intake_marks` table (one row per intake log). */
export const intakeMarksMigration: Migration = {
  version: 140,
  name: 'intake-marks',
  up(db) {
    db.exec(`
      CREATE TABLE intake_marks (
        name TEXT PRIMARY KEY,
        seq INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};
