/**
 * Moves WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit
 * that crosses the threshold, so every thousand pages one hook reply or command ack waits for a
 * checkpoint's I/O (visible as p99 spikes). The daemon's connection turns the automatic
 * checkpoint off (`openDb(file, { autoCheckpoint: false })`) and this worker thread, with its own
 * connection, runs PASSIVE checkpoints instead: they never block the writer, and WAL mode lets
 * both connections work at once. Closing the daemon's connection last checkpoints what is left.
 *
 * A PASSIVE checkpoint never lets the WAL start over while writes keep coming: it copies the frames
 * that were there when it began, the writer appends more meanwhile, so the WAL is never fully copied
 * when the next write begins and the file only grows. So when the `-wal` file is larger than
 * `maxWalBytes` after a PASSIVE run, the worker copies the tail appended meanwhile (more PASSIVE
 * runs), pauses, and hands over to the writer's own connection (`writer`): the writer commits its
 * open deferred transaction, the worker copies that as well, and then the writer runs a RESTART
 * checkpoint between two group commits: it copies the few frames committed since, and the next
 * commit writes from the start of the file again, so the `-wal` file stays near `maxWalBytes`. (RESTART rather
 * than TRUNCATE: emptying the file stalls the loop several times longer, and it grows back at once.
 * Either one from the worker would hold the write lock while the daemon's deferred write
 * transactions upgrade from a read, and those fail with SQLITE_BUSY at once instead of waiting.)
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { createRequire } from 'node:module';
import { endianness } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { Database } from 'better-sqlite3';
import { deferredCommitOf, inCallerTransaction } from './deferred-commit';

/** A running checkpointer. */
export interface WalCheckpointer {
  /** Stops the worker (after any checkpoint in progress) and closes its connection. */
  stop(): Promise<void>;
  /** `worker`: checkpoints run off the loop; `fallback`: the worker kept dying, so `onFallback` was called. */
  readonly mode: 'worker' | 'fallback' | 'stopped';
  /** How many times a dead worker was started again. */
  readonly restarts: number;
  /** Fault injection for tests: ends the worker as a crash would (it is restarted, or falls back). */
  crashWorker(): Promise<void>;
}

/** Options of `startWalCheckpointer`. */
export interface WalCheckpointerOptions {
  readonly intervalMs?: number;
  /** A WAL holding more than this is checkpointed with RESTART, so it starts over (default 64 MiB). */
  readonly maxWalBytes?: number;
  /**
   * The writing connection (the daemon's): it runs the RESTART checkpoint that bounds the WAL. Without
   * it only PASSIVE checkpoints run, and a WAL over `maxWalBytes` is reported through `onError`.
   */
  readonly writer?: Database;
  readonly onError?: (message: string) => void;
  /** Restarts of a worker that died before the checkpointer gives up on it (default 3). */
  readonly maxRestarts?: number;
  /**
   * Called once when the worker cannot be kept alive: the caller turns SQLite's automatic
   * checkpoint back on for its connection, so the WAL never grows without bound.
   */
  readonly onFallback?: () => void;
  /**
   * After each RESTART from the writer's connection: how many WAL frames were left for it to copy
   * (read from the WAL index; -1 when that could not be read) and how long the event loop waited.
   */
  readonly onRestart?: (restart: { framesLeft: number; ms: number }) => void;
  /** SQLite's binding for this runtime, loaded by the worker too (`OpenDbOptions.nativeBinding`). */
  readonly nativeBinding?: string;
}

/** The WAL size past which it is restarted (RESTART) instead of only copied (PASSIVE). */
export const DEFAULT_MAX_WAL_BYTES = 64 * 1024 * 1024;

// The worker is CommonJS source evaluated in its own thread: it needs no file of its own, so it
// works the same from the sources, the esbuild CLI bundle and the Electron main bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const report = (e) => parentPort.postMessage({ error: String((e && e.message) || e) });
let db;
try {
  const Database = require(workerData.modulePath);
  db = new Database(workerData.file, { fileMustExist: true, nativeBinding: workerData.nativeBinding });
  db.pragma('busy_timeout = 1000');
  // A checkpoint copies frames without the page cache: keep this connection's small.
  db.pragma('cache_size = -256');
} catch (e) {
  // SQLite's error class does not survive the thread boundary: send its message instead.
  report('cannot open ' + workerData.file + ': ' + ((e && e.message) || e));
  parentPort.close();
}
if (db) {
  let paused = false;
  // The WAL's frame count when the writer last restarted it: the WAL starts over at the next
  // write, so until then the count stays where it was and asks for no new restart.
  let restartedAt = -1;
  const pageSize = db.pragma('page_size', { simple: true });
  // PASSIVE runs until at most a short tail is left (a writer appends while one runs).
  const copyTail = () => {
    let [{ log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)');
    for (let i = 0; i < 8 && log - checkpointed > workerData.tailFrames; i++)
      [{ log, checkpointed }] = db.pragma('wal_checkpoint(PASSIVE)');
  };
  const timer = setInterval(() => {
    if (paused) return;
    try {
      const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)');
      // The bytes the WAL holds now (its header, then a header and a page per frame).
      const size = 32 + log * (pageSize + 24);
      if (size <= workerData.maxWalBytes || log === restartedAt) return;
      // Too large. Copy what was appended during the run again, so the writer's own checkpoint only
      // has a short tail left; then none here until it has run ('resume').
      copyTail();
      paused = true;
      parentPort.postMessage({ oversize: size });
    } catch (e) { report(e); }
  }, workerData.intervalMs);
  parentPort.on('message', (m) => {
    if (m === 'resume') {
      paused = false;
      try { restartedAt = db.pragma('wal_checkpoint(PASSIVE)')[0].log; } catch (e) { report(e); }
    }
    // The writer committed what it held: copy it here (with its syncs), so its RESTART has only
    // what it commits after this to copy and sync on its own thread.
    if (m === 'copy') {
      try { copyTail(); } catch (e) { report(e); }
      parentPort.postMessage({ copied: true });
    }
    if (m === 'stop') { clearInterval(timer); db.close(); parentPort.close(); }
  });
}
`;

/**
 * Starts checkpointing `file` every `intervalMs` in a worker thread; errors go to `onError`. A worker
 * that dies is started again (up to `maxRestarts`), after which `onFallback` is called.
 */
export function startWalCheckpointer(file: string, options: WalCheckpointerOptions = {}): WalCheckpointer {
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  const maxRestarts = options.maxRestarts ?? 3;
  let mode: WalCheckpointer['mode'] = 'worker';
  let restarts = 0;
  let stopping: Promise<void> | undefined;
  let worker: Worker;
  let exited: Promise<void>;

  const maxWalBytes = options.maxWalBytes ?? DEFAULT_MAX_WAL_BYTES;
  let warned = false;
  /** The WAL's size the worker last reported as over the bound. */
  let reported = 0;
  /** The worker's copies of what the writer committed, in the restart under way. */
  let copyRounds = 0;
  /**
   * Restarts the WAL from the writer's connection between two of its transactions, then lets `w`
   * go on. The writer first commits the turns its deferred transaction holds; while more than a
   * short tail is left uncopied, the worker copies it into the database (and syncs both files) off
   * this thread, a few rounds at most, and this runs again when it has (`copied`). So the RESTART
   * copies and syncs only what the writer commits meanwhile: it used to copy up to a whole commit
   * window's pages and sync them on the event loop, 25-90 ms a restart in the growth bench's
   * ingest, against 4 ms for a tail of about 100 pages (most of it the two syncs).
   */
  const restart = (w: Worker, size: number): void => {
    if (stopping || w !== worker) return;
    const writer = options.writer;
    if (writer?.open && inCallerTransaction(writer)) {
      setImmediate(() => restart(w, size));
      return;
    }
    if (writer?.open) {
      try {
        deferredCommitOf(writer)?.commit();
        const framesLeft = unbackfilledFrames(file);
        // The worker copies what was committed (again, for a busy writer that committed while it
        // copied): a few rounds at most, each shorter than the one before while the writes slow down.
        if (framesLeft > TAIL_FRAMES && copyRounds < MAX_COPY_ROUNDS) {
          copyRounds += 1;
          w.postMessage('copy');
          return;
        }
        const started = performance.now();
        checkpointRestart(writer);
        options.onRestart?.({ framesLeft, ms: performance.now() - started });
      } catch (e) {
        options.onError?.(`WAL restart checkpoint failed: ${String((e as Error)?.message ?? e)}`);
      }
    } else if (!warned) {
      warned = true;
      options.onError?.(`WAL is ${size} bytes, over ${maxWalBytes}, and no writer connection can restart it`);
    }
    w.postMessage('resume');
  };

  const spawn = (): void => {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: {
        file,
        modulePath,
        nativeBinding: options.nativeBinding,
        intervalMs: options.intervalMs ?? 500,
        maxWalBytes,
        tailFrames: TAIL_FRAMES,
      },
    });
    w.unref();
    w.on('message', (m: { error?: string; oversize?: number; copied?: boolean }) => {
      if (m?.error) options.onError?.(m.error);
      if (typeof m?.oversize === 'number') {
        reported = m.oversize;
        copyRounds = 0;
        setImmediate(() => restart(w, reported));
      }
      if (m?.copied === true) setImmediate(() => restart(w, reported));
    });
    w.on('error', (e: unknown) => options.onError?.(String((e as { message?: unknown } | null)?.message ?? e)));
    exited = new Promise<void>((resolve) =>
      w.once('exit', () => {
        resolve();
        if (stopping || w !== worker) return;
        // Died on its own: start it again, or give the checkpoints back to SQLite.
        if (restarts < maxRestarts) {
          restarts += 1;
          options.onError?.(`WAL checkpoint worker exited; restarting it (${restarts}/${maxRestarts})`);
          spawn();
        } else {
          mode = 'fallback';
          options.onError?.('WAL checkpoint worker keeps exiting; falling back to automatic checkpoints');
          options.onFallback?.();
        }
      }),
    );
    worker = w;
  };
  spawn();

  return {
    get mode() {
      return mode;
    },
    get restarts() {
      return restarts;
    },
    crashWorker: async () => {
      const dying = exited;
      await worker.terminate();
      await dying;
    },
    stop: () =>
      (stopping ??= (async () => {
        const wasWorker = mode === 'worker';
        mode = 'stopped';
        if (!wasWorker) return;
        // Keep the process alive until the worker has closed its connection.
        worker.ref();
        worker.postMessage('stop');
        await exited;
      })()),
  };
}

/** Frames the worker's PASSIVE runs may leave for the writer's checkpoint to copy. */
const TAIL_FRAMES = 64;

/** The most rounds of "the writer commits, the worker copies" before the writer's RESTART. */
const MAX_COPY_ROUNDS = 3;

/** How long the writer's RESTART waits for a reader to leave the WAL before trying again later (ms). */
const RESTART_BUSY_MS = 100;

/**
 * RESTART checkpoint on the writer's connection with a short busy timeout, so a long reader makes it
 * give up (SQLite then reports busy and the WAL restarts on a later try) rather than stall the loop.
 */
function checkpointRestart(writer: Database): void {
  const saved = writer.pragma('busy_timeout', { simple: true }) as number;
  writer.pragma(`busy_timeout = ${RESTART_BUSY_MS}`);
  try {
    writer.pragma('wal_checkpoint(RESTART)');
  } finally {
    writer.pragma(`busy_timeout = ${saved}`);
  }
}

/**
 * The frames the WAL holds that no checkpoint has copied yet, from the WAL index (`<file>-shm`): its
 * header's `mxFrame` (bytes 16-19) less the checkpoint info's `nBackfill` (bytes 96-99), both in
 * the machine's byte order. -1 when the index cannot be read.
 */
function unbackfilledFrames(file: string): number {
  let fd: number | undefined;
  try {
    fd = openSync(`${file}-shm`, 'r');
    const head = Buffer.alloc(100);
    if (readSync(fd, head, 0, 100, 0) < 100) return -1;
    const le = endianness() === 'LE';
    const mxFrame = le ? head.readUInt32LE(16) : head.readUInt32BE(16);
    const nBackfill = le ? head.readUInt32LE(96) : head.readUInt32BE(96);
    return mxFrame - nBackfill;
  } catch {
    return -1;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
