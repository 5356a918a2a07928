/**
 * Full-text search over stored events (SQLite FTS5, compiled into better-sqlite3).
 *
 * `events_fts` holds per event (rowid = `events.n`) its session token and `body`: the text leaves of its
 * `data` (prompts, assistant text, commands, outputs, tool names, whatever the capture level kept;
 * digests left out). Rows are indexed behind admission, in batches, by `SearchIndexer`
 * (store/search-indexer.ts): a hook's commit never pays for the index, and a batch writes one
 * segment instead of one per group commit. A trigger removes a deleted event from the index,
 * so the per-session limit and the age-based retention prune it too. The session is indexed as one
 * token (`sessionToken`: 's' + the hex of its UTF-8 bytes), so a search within a session is a
 * two-term intersection, not a phrase match over the tokens of its id. Hits are ordered newest
 * first, never ranked, so no column sizes are kept (`columnsize = 0`: one write less per event).
 * (A view over `events` cannot be FTS5 external content: FTS5 refuses virtual tables such as
 * `json_tree` in its content reads.)
 */
import type { Migration } from './migration';

/** The indexed text of the event whose JSON is `column` (qualified): the text leaves of `data`, digests excluded. */
export const searchBody = (column: string): string =>
  `(SELECT group_concat(leaf.value, ' ') FROM json_tree(${column}, '$.data') AS leaf
     WHERE leaf.type = 'text' AND CAST(leaf.key AS TEXT) NOT LIKE '%digest%')`;

/** The indexed session token of the session id in `column` (see `sessionToken` in event-search.ts). */
export const sessionTokenSql = (column: string): string => `'s' || lower(hex(${column}))`;

/** Creates the FTS5 index and its delete trigger (the indexer fills it, stored events included). */
export const eventSearchMigration: Migration = {
  version: 90,
  name: 'event-search',
  up(db) {
    db.exec(`
      CREATE VIRTUAL TABLE events_fts USING fts5(
        session, body,
        tokenize = 'unicode61 remove_diacritics 2',
        columnsize = 0
      );
      CREATE TRIGGER events_fts_delete AFTER DELETE ON events BEGIN
        DELETE FROM events_fts WHERE rowid = old.n;
      END;
    `);
  },
};
