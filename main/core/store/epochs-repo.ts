/** Durable epoch memory for in-process emitters: each daemon start takes the next epoch. */
import type { Database, Statement } from 'better-sqlite3';

/** Hands out a fresh, never-reused epoch per emitter identity (AEP-0001 §7 rule 1). */
export class EpochsRepo {
  private readonly bump: Statement<[string]>;
  private readonly read: Statement<[string]>;

  constructor(private readonly db: Database) {
    this.bump = db.prepare(
      `INSERT INTO emitter_epochs (emitter, epoch) VALUES (?, 0)
       ON CONFLICT (emitter) DO UPDATE SET epoch = epoch + 1`,
    );
    this.read = db.prepare('SELECT epoch FROM emitter_epochs WHERE emitter = ?');
  }

  /** Takes the next epoch for `emitter` (0 on first use) and remembers it durably. */
  next(emitter: string): number {
    return this.db.transaction(() => {
      this.bump.run(emitter);
      return (this.read.get(emitter) as { epoch: number }).epoch;
    })();
  }

  /** The last epoch taken for `emitter`, or null when it never started. */
  current(emitter: string): number | null {
    const row = this.read.get(emitter) as { epoch: number } | undefined;
    return row ? row.epoch : null;
  }
}
