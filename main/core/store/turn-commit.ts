/**
 * Group commit per event-loop turn, shared by every repository of one connection that writes
 * behind (event admission, session rows): whatever they queued during a turn is written in ONE
 * `BEGIN IMMEDIATE` transaction at the end of the turn, so the hook path pays one commit per turn
 * however many hooks, events and session rows it carried. The writes run without savepoints (a
 * savepoint makes SQLite journal every page it touches): when the shared transaction fails, it is
 * rolled back whole and each writer is tried again alone, and a writer whose own transaction
 * fails recovers as it sees fit (the event store retries each admit alone). Writers hear only
 * after COMMIT what became of their writes, so nothing is acknowledged before it is durable (the
 * connection runs WAL with synchronous=NORMAL: a COMMIT survives a kill -9).
 */
import type { Database, Transaction } from 'better-sqlite3';

/** A repository that writes behind. */
export interface TurnWriter {
  /**
   * Writes what it queued, inside the turn's transaction; throws on failure (the transaction is
   * then rolled back). Called again with the same writes when the transaction is retried.
   */
  write(): void;
  /** After COMMIT: its writes are durable. */
  settle(): void;
  /** Its writes failed even in a transaction of its own (`error`); nothing of them is stored. */
  recover(error: unknown): void;
}

/** The group commit of one connection. */
export class TurnCommit {
  private writers: TurnWriter[] = [];
  private scheduled = false;
  private readonly tx: Transaction<(writers: readonly TurnWriter[]) => void>;

  constructor(private readonly db: Database) {
    this.tx = db.transaction((writers: readonly TurnWriter[]) => {
      for (const w of writers) w.write();
    });
  }

  /** Queues `writer` for the end of this turn (once per turn however often it is scheduled). */
  schedule(writer: TurnWriter): void {
    if (!this.writers.includes(writer)) this.writers.push(writer);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.commit());
  }

  /** Commits everything queued now instead of at the end of the turn (shutdown). */
  commit(): void {
    this.scheduled = false;
    const writers = this.writers;
    if (writers.length === 0) return;
    if (this.db.open && this.db.inTransaction) {
      // Never inside a caller's transaction: its commit would come after the writers heard "done".
      this.scheduled = true;
      setImmediate(() => this.commit());
      return;
    }
    this.writers = [];
    const failed = this.run(writers);
    if (failed === undefined) {
      for (const w of writers) w.settle();
      return;
    }
    if (writers.length === 1) {
      writers[0].recover(failed.error);
      return;
    }
    this.alone(writers);
  }

  /** Rolled back whole: each writer alone, so one writer's failure costs the others nothing. */
  private alone(writers: readonly TurnWriter[]): void {
    for (const w of writers) {
      const alone = this.run([w]);
      if (alone === undefined) w.settle();
      else w.recover(alone.error);
    }
  }

  /** Runs one transaction over `writers`; returns its failure, or undefined once committed. */
  private run(writers: readonly TurnWriter[]): { error: unknown } | undefined {
    try {
      // BEGIN IMMEDIATE takes the write lock first, so the batch never has to upgrade a read lock
      // (which fails at once, not after the busy wait, when another connection writes).
      this.tx.immediate(writers);
      return undefined;
    } catch (error) {
      return { error };
    }
  }
}

const commits = new WeakMap<Database, TurnCommit>();

/** The group commit of `db` (one per connection, created on first use). */
export function turnCommitOf(db: Database): TurnCommit {
  let commit = commits.get(db);
  if (commit === undefined) commits.set(db, (commit = new TurnCommit(db)));
  return commit;
}
