/**
 * Operator input to launched sessions, durable (mid-turn steering): one row per accepted message,
 * kept after it settles so the console shows its fate. `state` follows the lifecycle in
 * common/input-lifecycle.ts (queued → sent → settled, or queued → settled dropped);
 * `planned` is the outcome a queued message settles with when it is sent as an ordinary prompt;
 * `position` orders a session's queued messages (the pending list can reorder them). After a
 * restart nothing is re-sent: a row caught `sent` settles `interrupted`, queued rows of sessions
 * that did not survive settle `dropped` with a reason.
 */
import type { Migration } from './migration';

/** Creates `agent_inputs`. */
export const agentInputsMigration: Migration = {
  version: 80,
  name: 'agent-inputs',
  up(db) {
    db.exec(`
      CREATE TABLE agent_inputs (
        n              INTEGER PRIMARY KEY,
        command_source TEXT    NOT NULL,
        command_id     TEXT    NOT NULL,
        agent          TEXT    NOT NULL,
        session        TEXT    NOT NULL,
        text           TEXT    NOT NULL,
        delivery       TEXT    NOT NULL,
        synthetic      INTEGER NOT NULL DEFAULT 0,
        actor          TEXT    NOT NULL,
        surface        TEXT    NOT NULL,
        state          TEXT    NOT NULL CHECK (state IN ('queued', 'sent', 'settled')),
        planned        TEXT,
        outcome        TEXT,
        reason         TEXT,
        position       INTEGER,
        mechanism      TEXT,
        rpc_id         TEXT,
        run            TEXT,
        edits          INTEGER NOT NULL DEFAULT 0,
        queued_at_ms   INTEGER NOT NULL,
        sent_at_ms     INTEGER,
        settled_at_ms  INTEGER,
        updated_at_ms  INTEGER NOT NULL,
        CHECK ((state = 'settled') = (outcome IS NOT NULL))
      );
      CREATE UNIQUE INDEX agent_inputs_command ON agent_inputs (command_source, command_id);
      CREATE INDEX agent_inputs_queue ON agent_inputs (session, state, position);
      CREATE INDEX agent_inputs_state ON agent_inputs (state, n);
    `);
  },
};
