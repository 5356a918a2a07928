/**
 * `queue_pauses` (migration 0170): which sessions hold their queue after the operator's Stop, since
 * when and by which command. One row per held session; resuming deletes it.
 */
import type { Database, Statement } from 'better-sqlite3';

/** A held queue. */
export interface QueuePause {
  readonly session: string;
  /** The command that stopped the turn, when known. */
  readonly cause: string | null;
  readonly pausedAtMs: number;
}

interface Row {
  session: string;
  cause: string | null;
  paused_at_ms: number;
}

/** Repository of `queue_pauses`; statements are prepared once. */
export class QueuePausesRepo {
  private readonly insertStmt: Statement<[string, string | null, number]>;
  private readonly getStmt: Statement<[string]>;
  private readonly deleteStmt: Statement<[string]>;

  constructor(db: Database) {
    this.insertStmt = db.prepare('INSERT OR IGNORE INTO queue_pauses (session, cause, paused_at_ms) VALUES (?, ?, ?)');
    this.getStmt = db.prepare('SELECT * FROM queue_pauses WHERE session = ?');
    this.deleteStmt = db.prepare('DELETE FROM queue_pauses WHERE session = ?');
  }

  /** Holds `session`'s queue; false when it was already held. */
  pause(session: string, cause: string | null, atMs: number): boolean {
    return this.insertStmt.run(session, cause, atMs).changes === 1;
  }

  /** The hold of `session`, or null. */
  get(session: string): QueuePause | null {
    const row = this.getStmt.get(session) as Row | undefined;
    return row ? { session: row.session, cause: row.cause, pausedAtMs: row.paused_at_ms } : null;
  }

  /** Lets `session`'s queue flow; returns the hold it lifted, or null. */
  resume(session: string): QueuePause | null {
    const held = this.get(session);
    if (held) this.deleteStmt.run(session);
    return held;
  }
}
