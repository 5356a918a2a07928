/**
 * How far each observed session's transcript has been read (transcripts/tailer.ts): the file, its
 * inode and the offset after the last complete line whose facts were committed, so a restart
 * reads on from there instead of emitting the session's replies again.
 */
import type { Migration } from './migration';

/** Adds the `transcript_positions` table (one row per vendor session). */
export const transcriptPositionsMigration: Migration = {
  version: 200,
  name: 'transcript-positions',
  up(db) {
    db.exec(`
      CREATE TABLE transcript_positions (
        vendor TEXT NOT NULL,
        session TEXT NOT NULL,
        path TEXT NOT NULL,
        ino INTEGER NOT NULL,
        offset INTEGER NOT NULL,
        PRIMARY KEY (vendor, session)
      ) WITHOUT ROWID;
    `);
  },
};
