/**
 * Indexes for the hot reads and the age-based retention sweeps (store/retention.ts):
 * - `sessions_seen`: `/api/sessions` keyset pages, most recent first, and the idle-session sweep;
 * - `steering_settled`: settled instructions by age (queued and in-flight rows have no settle time);
 * - `control_acks_time`: recorded acks by age;
 * - `audit_time`: audit rows by age (the audit filters keep their (column, id) indexes).
 */
import type { Migration } from './migration';

/** Adds the retention and paging indexes. */
export const retentionIndexesMigration: Migration = {
  version: 60,
  name: 'retention-indexes',
  up(db) {
    db.exec(`
      CREATE INDEX sessions_seen ON sessions (last_seen_ms, source, session);
      CREATE INDEX steering_settled ON steering (settled_at_ms) WHERE settled_at_ms IS NOT NULL;
      CREATE INDEX control_acks_time ON control_acks (time_ms);
      CREATE INDEX audit_time ON audit (time);
    `);
  },
};
