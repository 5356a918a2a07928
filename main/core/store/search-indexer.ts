/**
 * Fills the FTS5 index of migration 0090 behind admission: every event with a row number above the
 * highest one indexed is indexed, a bounded batch per transaction, yielding between batches. The
 * invariant (every event up to the index's highest rowid is indexed; deleted events leave the index
 * by trigger) makes a catch-up idempotent, so a restart, a crash or events stored before the index
 * existed need nothing more than the next run. A search awaits `run()` first (batches with a turn
 * between them, never one long stall): it sees every event committed before it.
 *
 * A background batch holds the event loop for as long as its transaction takes, and every hook in
 * flight waits that long (measured under hook load: 256 events took 6 ms at the median and up to
 * 29 ms, as long as a young-generation GC and three times as often). So the background run sizes
 * its batches to a time budget: it halves the batch after one that took longer than
 * `STEP_BUDGET_MS`, and doubles it again (up to `batch`) after one that took less than half of it;
 * each run starts at no more than `FIRST_RUN_BATCH`.
 */
import type { Database, Statement } from 'better-sqlite3';
import { searchBody, sessionTokenSql } from './migrations/0090-event-search';

/** Options of the indexer. */
export interface SearchIndexerOptions {
  /** Most events indexed per transaction (default 256; background batches shrink to the time budget). */
  readonly batch?: number;
  /**
   * How long after being woken (events were stored) a background run starts (default 250 ms), so
   * one run takes a burst; nothing runs while no event comes. 0 disables background runs (tests
   * drive them).
   */
  readonly everyMs?: number;
  readonly onError?: (error: unknown) => void;
  /** The clock batches are timed with (ms; default `performance.now`; tests pass their own). */
  readonly now?: () => number;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What one background batch aims to take at most (ms). */
export const STEP_BUDGET_MS = 2;
/** The smallest background batch. */
const MIN_BATCH = 8;
/**
 * The largest first batch of a background run. A run starts after a pause in which other work may
 * have pushed the index's pages out of SQLite's cache (a replay reads the whole history through
 * it): in the growth bench the first 256-event batch after a replay took 10-20 ms, far over the
 * budget, where the same batches had kept within it before. Fast batches double from here.
 */
export const FIRST_RUN_BATCH = 16;

/** Indexes stored events for search, in batches. */
export class SearchIndexer {
  private readonly batch: number;
  private readonly highestStmt: Statement<[]>;
  private readonly indexStmt: Statement<[number, number]>;
  private readonly every: number;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private running: Promise<number> | null = null;
  /** The background batch size now, between MIN_BATCH and `batch` (see the time budget above). */
  private size: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Database,
    private readonly options: SearchIndexerOptions = {},
  ) {
    this.batch = Math.max(1, Math.trunc(options.batch ?? 256));
    this.size = this.batch;
    this.now = options.now ?? (() => performance.now());
    this.highestStmt = db.prepare('SELECT rowid AS n FROM events_fts ORDER BY rowid DESC LIMIT 1');
    this.indexStmt = db.prepare(
      `INSERT INTO events_fts (rowid, session, body)
       SELECT n, ${sessionTokenSql('events.session')}, ${searchBody('events.json')}
       FROM events WHERE n > ? ORDER BY n LIMIT ?`,
    );
    this.every = options.everyMs ?? 250;
    // What was stored before this start (and not yet indexed) is indexed in the first run.
    this.wake();
  }

  /** Asks for a background run `everyMs` from now unless one is asked for already (events were stored). */
  wake(): void {
    if (this.every <= 0 || this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.run();
    }, this.every);
    this.timer.unref();
  }

  /** Indexes one batch of at most `limit` events now; returns how many it indexed (0 when caught up). */
  step(limit: number = this.batch): number {
    if (!this.db.open) return 0;
    const index = (): number => {
      const highest = (this.highestStmt.get() as { n: number } | undefined)?.n ?? 0;
      return this.indexStmt.run(highest, limit).changes;
    };
    return this.db.transaction(index)();
  }

  /** The batch size the next background batch uses. */
  get backgroundBatch(): number {
    return this.size;
  }

  /** Indexes everything stored so far synchronously (what a search calls first). */
  catchUp(): void {
    while (this.step() === this.batch);
  }

  /** A background run: batches until caught up, yielding between them (joined if one runs). */
  run(): Promise<number> {
    if (this.running !== null) return this.running;
    const run = this.loop();
    this.running = run;
    void run.finally(() => {
      if (this.running === run) this.running = null;
    });
    return run;
  }

  private async loop(): Promise<number> {
    let total = 0;
    this.size = Math.min(this.size, Math.max(Math.min(MIN_BATCH, this.batch), FIRST_RUN_BATCH));
    try {
      for (;;) {
        const limit = this.size;
        const started = this.now();
        const n = this.step(limit);
        const took = this.now() - started;
        total += n;
        if (took > STEP_BUDGET_MS) this.size = Math.max(Math.min(MIN_BATCH, this.batch), Math.floor(limit / 2));
        else if (n === limit && took < STEP_BUDGET_MS / 2) this.size = Math.min(this.batch, limit * 2);
        if (n < limit) return total;
        await nextTurn();
      }
    } catch (error) {
      this.options.onError?.(error);
      return total;
    }
  }

  /** Stops background runs. */
  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }
}
