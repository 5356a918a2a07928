/**
 * The sequence of the last commit-journal record the database holds (deferred-commit.ts): the
 * deferred COMMIT writes it with the turns it commits, so a replay after a crash writes back only
 * the turns after it, each once.
 */
import type { Migration } from './migration';

/** Adds the one-row `commit_journal` table. */
export const commitJournalMigration: Migration = {
  version: 130,
  name: 'commit-journal',
  up(db) {
    db.exec(`
      CREATE TABLE commit_journal (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        seq INTEGER NOT NULL
      );
      INSERT INTO commit_journal (id, seq) VALUES (1, 0);
    `);
  },
};
