/**
 * A second reader for long session replays: a worker thread with its own read connection that
 * reads the first part of a replay page while the event loop's connection reads the rest, on the
 * machine's other core.
 *
 * A session's replay reads its rows in session order through the session index, and over many
 * interleaved sessions every row is a table page of its own: each costs a page read (a `pread` of
 * 4 KiB from the page cache, about half the row's time on a guest where a system call is dear)
 * and the B-tree step to it. No layout of the rows makes that cheaper without costing every hook
 * more (docs/ARCHITECTURE.md: the clustered table, session runs); two readers at once halve the
 * wait instead, and cost the hook path nothing.
 *
 * The page is split by the session order itself (store/event-replay.ts): the caller looks up
 * (index only) the key where the worker's part ends, asks the worker for the rows up to it (for
 * the next page, before it hands out the current one), reads the rest of the page, then waits for
 * the worker's rows: `Atomics.wait` on a shared word (polling it where the thread may not block),
 * the rows taken with `receiveMessageOnPort`, so the wait needs no turn of the event loop. The
 * two connections see the same rows only when the caller's holds nothing uncommitted: the caller
 * checks that before asking, voids a part asked for ahead when its connection wrote since, and
 * checks the part's row count against the index's; a page that fails any of these is read by
 * the caller alone, as is every page while the worker is starting, busy, failed or stopped. The
 * worker starts when a replay asks for a large page and stops after `idleMs` without a request,
 * so an idle daemon holds no second connection.
 */
import { createRequire } from 'node:module';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';

/** Options of `ReplayHelper`. */
export interface ReplayHelperOptions {
  /** Stop the worker after this long without a request (ms, default 10 s). */
  readonly idleMs?: number;
  /** The longest wait for the worker's rows before the caller reads them itself (ms, default 2 s). */
  readonly waitMs?: number;
  /** The worker connection's page cache (KiB, default 4 MiB: the table's interior pages). */
  readonly cacheKiB?: number;
  /** Workers that fail (start, read or wait) before the helper stays off (default 3). */
  readonly maxFailures?: number;
  /**
   * How the caller waits for the worker's rows: `block` (`Atomics.wait`) or `spin` (polling the
   * shared word: for a thread that may not block, as a browser's main thread may not). By default
   * `block` where this thread may block, else `spin`.
   */
  readonly wait?: 'block' | 'spin';
  /** Told each failure (the replay goes on, read by the caller) and whether the helper is now off for good. */
  readonly onError?: (message: string, off: boolean) => void;
  /** SQLite's binding for this runtime, loaded by the worker (`OpenDbOptions.nativeBinding`). */
  readonly nativeBinding?: string;
}

/** Whether this thread may block in `Atomics.wait` (a browser's main thread may not). */
function mayBlock(): boolean {
  try {
    // A value that differs returns 'not-equal' at once; a thread that may not block throws.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 1, 0);
    return true;
  } catch {
    return false;
  }
}

/** What the helper is doing; `off` after `maxFailures` failures or `stop`. */
export type ReplayHelperState = 'idle' | 'starting' | 'ready' | 'off';

// Shared words: [0] the id of the last request answered, [1] 1 once the connection is open, -1 if
// it could not be opened.
const ANSWERED = 0;
const OPENED = 1;

// CommonJS evaluated in the worker's thread: no file of its own, so it works the same from the
// sources, the CLI bundle and the Electron main bundle (as the WAL checkpointer's worker).
const WORKER_SOURCE = `
const { workerData } = require('node:worker_threads');
const words = new Int32Array(workerData.words);
const port = workerData.port;
let db, stmt;
try {
  const Database = require(workerData.modulePath);
  db = new Database(workerData.file, { fileMustExist: true, nativeBinding: workerData.nativeBinding });
  db.pragma('query_only = 1');
  // A read waits out the writer's brief exclusive moments (WAL recovery) instead of failing.
  db.pragma('busy_timeout = 200');
  db.pragma('cache_size = -' + workerData.cacheKiB);
  stmt = db.prepare(workerData.sql).raw(true);
} catch (e) {
  port.postMessage({ id: 0, error: 'cannot open ' + workerData.file + ': ' + String((e && e.message) || e) });
  Atomics.store(words, ${OPENED}, -1);
  Atomics.notify(words, ${OPENED});
  try { if (db) db.close(); } catch {}
  port.close();
}
if (stmt) {
  Atomics.store(words, ${OPENED}, 1);
  port.on('message', (m) => {
    if (m === 'stop') { db.close(); port.close(); return; }
    let reply;
    // Flat (four values a row): one array to copy across instead of one per row.
    try { reply = { id: m.id, rows: stmt.all(m.session, ...m.from, ...m.to).flat() }; }
    catch (e) { reply = { id: m.id, error: String((e && e.message) || e) }; }
    port.postMessage(reply);
    Atomics.store(words, ${ANSWERED}, m.id);
    Atomics.notify(words, ${ANSWERED});
  });
}
`;

/** The worker's heap bounds (MiB): it holds one part of one page at a time (a part too large for them ends the worker, and that part is read by the caller). */
const YOUNG_MB = 2;
const OLD_MB = 256;

/** A request not taken for this long (ms) no longer keeps others from asking. */
const ABANDONED_MS = 1_000;

type Key = readonly [number, number, number, number];

interface Running {
  readonly worker: Worker;
  readonly port: MessagePort;
  readonly words: Int32Array;
  readonly exited: Promise<void>;
}

/** A worker thread that reads a range of one session's rows with `sql` (see the module comment). */
export class ReplayHelper {
  private running: Running | null = null;
  private failures = 0;
  private stopped = false;
  private lastId = 0;
  /** The request posted and not yet taken, if any, and when it was posted. */
  private pending = 0;
  private pendingAt = 0;
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly idleMs: number;
  private readonly waitMs: number;
  private readonly cacheKiB: number;
  private readonly maxFailures: number;
  private readonly block: boolean;
  private readonly onError: ReplayHelperOptions['onError'];
  private readonly nativeBinding: string | undefined;
  /** The last failure's reason, for diagnostics. */
  lastError: string | undefined;

  /**
   * `sql` takes (session, four key values after which to start, four key values to end at) and
   * returns rows of four columns.
   */
  constructor(
    private readonly file: string,
    private readonly sql: string,
    options: ReplayHelperOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 10_000;
    this.waitMs = options.waitMs ?? 2_000;
    this.cacheKiB = Math.max(64, Math.trunc(options.cacheKiB ?? 4_096));
    this.maxFailures = options.maxFailures ?? 3;
    this.onError = options.onError;
    this.nativeBinding = options.nativeBinding;
    this.block = (options.wait ?? (mayBlock() ? 'block' : 'spin')) === 'block';
  }

  get state(): ReplayHelperState {
    if (this.stopped || this.failures >= this.maxFailures) return 'off';
    if (this.running === null) return 'idle';
    return Atomics.load(this.running.words, OPENED) === 1 ? 'ready' : 'starting';
  }

  /** Starts the worker unless it runs (it is `ready` some milliseconds later), and keeps it from idling out. */
  want(): void {
    if (this.state === 'off') return;
    if (this.running === null) {
      try {
        this.running = this.spawn();
      } catch (e) {
        // No thread to be had (resource limits): the replay reads on its own connection.
        this.fail(`cannot start the replay worker: ${String((e as Error)?.message ?? e)}`);
        return;
      }
    } else if (Atomics.load(this.running.words, OPENED) === -1) {
      this.fail(this.takeError() ?? 'the worker could not open the database');
      return;
    }
    this.touch();
  }

  /**
   * Asks for the rows after `from` through `to` of `session`. Returns the request's ticket for
   * `take`, or 0 when the worker cannot take it now.
   */
  ask(session: string, from: Key, to: Key): number {
    if (this.state !== 'ready') return 0;
    // One request at a time; one never taken (its replay was dropped) is given up on after a while.
    if (this.pending !== 0 && performance.now() - this.pendingAt < ABANDONED_MS) return 0;
    const id = (this.lastId = this.lastId >= 0x7fff_ffff ? 1 : this.lastId + 1);
    this.running!.port.postMessage({ id, session, from, to });
    this.pending = id;
    this.pendingAt = performance.now();
    this.touch();
    return id;
  }

  /** Gives up on request `ticket` if it is still out (its answer is dropped when it comes). */
  cancel(ticket: number): void {
    if (this.pending === ticket) this.pending = 0;
  }

  /**
   * Waits for the rows request `ticket` asked for, flat (four values a row). Null when the request
   * is no longer out, the worker failed or took longer than `waitMs`: the caller reads them itself.
   */
  take(ticket: number): unknown[] | null {
    const id = this.pending;
    const running = this.running;
    // Another caller's request took its place (this one was given up on), or the worker is gone.
    if (id === 0 || id !== ticket || running === null) return null;
    this.pending = 0;
    const deadline = performance.now() + this.waitMs;
    for (;;) {
      const answered = Atomics.load(running.words, ANSWERED);
      if (answered === id) break;
      const left = deadline - performance.now();
      if (left <= 0 || (this.block && Atomics.wait(running.words, ANSWERED, answered, left) === 'timed-out')) {
        this.fail(`no answer from the replay worker within ${this.waitMs} ms`);
        return null;
      }
    }
    return this.receive(running, id);
  }

  /** The answer to request `id` (answers to requests that timed out are dropped). */
  private receive(running: Running, id: number): unknown[] | null {
    for (;;) {
      const received = receiveMessageOnPort(running.port) as
        | { message: { id: number; rows?: unknown[]; error?: string } }
        | undefined;
      if (received === undefined) {
        this.fail('the replay worker answered without its rows');
        return null;
      }
      const m = received.message;
      if (m.id !== id) continue; // an answer to a request that timed out
      if (m.error !== undefined || !Array.isArray(m.rows)) {
        this.fail(m.error ?? 'the replay worker sent no rows');
        return null;
      }
      return m.rows;
    }
  }

  /** Fault injection for tests: ends the worker as a crash would (counted as a failure). */
  async crashWorker(): Promise<void> {
    const running = this.running;
    if (running === null) return;
    await running.worker.terminate();
    await running.exited;
  }

  /** Stops the worker; resolves when its connection is closed. The helper stays off. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.halt();
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.halt(), this.idleMs);
    this.idleTimer.unref();
  }

  private takeError(): string | undefined {
    const received = this.running && receiveMessageOnPort(this.running.port);
    const m = (received as { message?: { error?: string } } | undefined)?.message;
    return m?.error;
  }

  private fail(reason: string): void {
    this.failures += 1;
    this.lastError = reason;
    this.onError?.(reason, this.failures >= this.maxFailures);
    void this.halt();
  }

  /** Ends the running worker (asked to close its connection, then ended if it does not). */
  private async halt(): Promise<void> {
    clearTimeout(this.idleTimer);
    const running = this.running;
    if (running === null) return;
    this.running = null;
    this.pending = 0;
    // Keep the process alive until the worker has closed its connection.
    running.worker.ref();
    running.port.postMessage('stop');
    const ended = await Promise.race([
      running.exited.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(resolve, 5_000, false).unref()),
    ]);
    if (!ended) await running.worker.terminate();
    running.port.close();
  }

  private spawn(): Running {
    const { port1, port2 } = new MessageChannel();
    const words = new Int32Array(new SharedArrayBuffer(8));
    const worker = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file: this.file,
        sql: this.sql,
        modulePath: createRequire(import.meta.url).resolve('better-sqlite3'),
        nativeBinding: this.nativeBinding,
        cacheKiB: this.cacheKiB,
        words: words.buffer,
        port: port2,
      },
      transferList: [port2],
      // Its heap only ever holds one part of a page: a small young generation keeps its RSS small.
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_MB, maxOldGenerationSizeMb: OLD_MB },
    });
    worker.unref();
    const exited = new Promise<void>((resolve) => {
      worker.once('exit', () => {
        resolve();
        if (this.running?.worker === worker) {
          const reason = this.takeError() ?? 'the replay worker exited';
          this.running = null;
          this.pending = 0;
          if (!this.stopped) this.fail(reason);
        }
      });
    });
    worker.on('error', (e: unknown) => {
      this.lastError = String((e as { message?: unknown } | null)?.message ?? e);
    });
    return { worker, port: port1, words, exited };
  }
}

export type { Key as ReplayKey };
