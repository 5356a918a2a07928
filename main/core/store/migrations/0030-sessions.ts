/**
 * Vendor sessions as the hook endpoint tracks them, and the durable epoch memory of our in-process
 * emitters (AEP-0001 §7: a restarted emitter must never reuse an earlier epoch).
 */
import type { Migration } from './migration';

/** Creates `sessions` and `emitter_epochs`. */
export const sessionsMigration: Migration = {
  version: 30,
  name: 'sessions',
  up(db) {
    db.exec(`
      CREATE TABLE sessions (
        source             TEXT    NOT NULL,
        session            TEXT    NOT NULL,
        agent              TEXT    NOT NULL,
        vendor             TEXT,
        cwd                TEXT,
        state              TEXT    NOT NULL,
        first_seen_ms      INTEGER NOT NULL,
        last_seen_ms       INTEGER NOT NULL,
        last_hook          TEXT,
        instruct_opt_in    INTEGER NOT NULL DEFAULT 0,
        permissions_opt_in INTEGER NOT NULL DEFAULT 0,
        pending_attention  INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (source, session)
      ) WITHOUT ROWID;
      CREATE INDEX sessions_vendor_session ON sessions (vendor, session);
      CREATE INDEX sessions_state_seen ON sessions (state, last_seen_ms);

      CREATE TABLE emitter_epochs (
        emitter TEXT    PRIMARY KEY,
        epoch   INTEGER NOT NULL
      ) WITHOUT ROWID;
    `);
  },
};
