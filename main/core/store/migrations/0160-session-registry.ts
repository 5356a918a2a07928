/**
 * The session registry (main/core/sessions): which sources see each agent session and which one
 * owns control. One row per (session, source kind); `owner` marks the source that can act on the
 * session (the launch host, a hub, a server). Written when a source first sees a session and when
 * an owner takes it, so ownership survives a restart or a kill -9 as the events do.
 */
import type { Migration } from './migration';

/** Creates `session_registry`. */
export const sessionRegistryMigration: Migration = {
  version: 160,
  name: 'session-registry',
  up(db) {
    db.exec(`
      CREATE TABLE session_registry (
        session       TEXT    NOT NULL,
        kind          TEXT    NOT NULL,
        agent         TEXT    NOT NULL,
        source        TEXT    NOT NULL,
        owner         INTEGER NOT NULL DEFAULT 0,
        first_seen_ms INTEGER NOT NULL,
        owned_at_ms   INTEGER,
        PRIMARY KEY (session, kind)
      ) WITHOUT ROWID;
      CREATE INDEX session_registry_owner ON session_registry (session) WHERE owner = 1;
    `);
  },
};
