/**
 * Sessions the companion launched itself (main/core/launched): which agent, what it reported about
 * itself at `initialize` (versions are information, never a gate), its capabilities verbatim, the
 * working directory, the agent's pid while it runs, the lifecycle state and why it ended. A restart
 * reads it to end what the old daemon left running, or to offer a resume where the agent can.
 */
import type { Migration } from './migration';

/** Creates `launched_sessions`. */
export const launchedSessionsMigration: Migration = {
  version: 70,
  name: 'launched-sessions',
  up(db) {
    db.exec(`
      CREATE TABLE launched_sessions (
        source        TEXT    NOT NULL,
        session       TEXT    NOT NULL,
        agent         TEXT    NOT NULL,
        protocol      TEXT    NOT NULL,
        cwd           TEXT    NOT NULL,
        command_json  TEXT    NOT NULL,
        agent_info    TEXT,
        capabilities  TEXT    NOT NULL,
        pid           INTEGER,
        state         TEXT    NOT NULL,
        started_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        ended_at_ms   INTEGER,
        end_reason    TEXT,
        PRIMARY KEY (source, session)
      ) WITHOUT ROWID;
      CREATE INDEX launched_sessions_state ON launched_sessions (state, started_at_ms);
      CREATE INDEX launched_sessions_session ON launched_sessions (session);
    `);
  },
};
