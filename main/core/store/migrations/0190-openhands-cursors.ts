/**
 * How far each OpenHands conversation has been read (main/core/vendors/openhands): the last
 * persisted event id and its naive server timestamp, per agent server and conversation, written
 * after the events it covers were admitted, with the mapping's state at that point (execution
 * status, open AEP run, open confirmation card). A restarted daemon resumes there: REST paging from
 * that event, the socket `since` its time, the same run still open; nothing is emitted twice.
 */
import type { Migration } from './migration';

/** Adds the `openhands_cursors` table. */
export const openhandsCursorsMigration: Migration = {
  version: 190,
  name: 'openhands-cursors',
  up(db) {
    db.exec(`
      CREATE TABLE openhands_cursors (
        server TEXT NOT NULL,
        conversation TEXT NOT NULL,
        last_id TEXT,
        last_ts TEXT,
        status TEXT,
        run TEXT,
        attention TEXT,
        cards INTEGER NOT NULL DEFAULT 0,
        ended INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (server, conversation)
      ) WITHOUT ROWID;
    `);
  },
};
