/**
 * The steering queue (one row per accepted instruction, kept after it settles so the console can
 * show its fate) and the recorded control acks that answer a retried command byte-identically
 * (AEP-0004 §3), both durable so a daemon restart loses neither.
 */
import type { Migration } from './migration';

/** Creates `steering` and `control_acks`. */
export const steeringMigration: Migration = {
  version: 40,
  name: 'steering',
  up(db) {
    db.exec(`
      CREATE TABLE steering (
        n              INTEGER PRIMARY KEY,
        command_source TEXT    NOT NULL,
        command_id     TEXT    NOT NULL,
        vendor         TEXT    NOT NULL,
        session        TEXT    NOT NULL,
        text           TEXT    NOT NULL,
        actor          TEXT    NOT NULL,
        surface        TEXT    NOT NULL,
        state          TEXT    NOT NULL,
        queued_at_ms   INTEGER NOT NULL,
        settled_at_ms  INTEGER,
        moment         TEXT,
        reason         TEXT
      );
      CREATE UNIQUE INDEX steering_command ON steering (command_source, command_id);
      CREATE INDEX steering_queue ON steering (vendor, session, state, n);
      CREATE INDEX steering_state ON steering (state, n);

      CREATE TABLE control_acks (
        source     TEXT    NOT NULL,
        command_id TEXT    NOT NULL,
        session    TEXT,
        json       TEXT    NOT NULL,
        time_ms    INTEGER NOT NULL,
        PRIMARY KEY (source, command_id)
      ) WITHOUT ROWID;
    `);
  },
};
