/** Binds the audit log to steering: rows stamped by the injected clock; a failing append is logged, never thrown. */
import type { AuditLog } from '../store/audit-log';
import type { Logger } from '../logger';
import type { AuditSink, Clock } from './steering-types';

/** An AuditSink writing to `log` with times from `clock`. */
export function auditSink(log: AuditLog, clock: Clock, logger: Logger): AuditSink {
  return (entry) => {
    try {
      log.append({ ...entry, time: new Date(clock()).toISOString() });
    } catch (error) {
      // Steering must go on when an audit row is refused; the log keeps the trace.
      logger.error('audit append failed', { action: entry.action, error });
    }
  };
}
