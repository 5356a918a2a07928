/** Operator settings (key → JSON value) and the append-only audit history. */
import type { Migration } from './migration';

/** Creates `settings` and `audit` with the indexes its filters use (each ends in id for keyset paging). */
export const settingsAuditMigration: Migration = {
  version: 20,
  name: 'settings-audit',
  up(db) {
    db.exec(`
      CREATE TABLE settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
      ) WITHOUT ROWID;

      CREATE TABLE audit (
        id         INTEGER PRIMARY KEY AUTOINCREMENT,
        time       TEXT NOT NULL,
        actor      TEXT NOT NULL,
        surface    TEXT NOT NULL,
        action     TEXT NOT NULL,
        session    TEXT,
        command_id TEXT,
        outcome    TEXT NOT NULL,
        detail     TEXT
      );
      CREATE INDEX audit_session ON audit (session, id);
      CREATE INDEX audit_action ON audit (action, id);
      CREATE INDEX audit_outcome ON audit (outcome, id);
      CREATE INDEX audit_surface ON audit (surface, id);
    `);
  },
};
