/** The slice of the audit log the installer writes to, so it works with the store's AuditLog or a test double. */
import type { AuditRow } from '../../../common/audit';

/** One audit row as the installer hands it over (the log assigns id and time). */
export type InstallerAuditEntry = Omit<AuditRow, 'id' | 'time'>;

/** Anything with an append method taking an audit row: the store's AuditLog fits. */
export interface AuditSink {
  append(entry: InstallerAuditEntry): unknown;
}
