/**
 * Moves WAL checkpoints off the event loop. SQLite's automatic checkpoint runs inside the commit
 * that crosses the threshold, so every thousand pages one hook reply or command ack waits for a
 * checkpoint's I/O (visible as p99 spikes). The daemon's connection turns the automatic
 * checkpoint off (`openDb(file, { autoCheckpoint: false })`) and this worker thread, with its own
 * connection, runs PASSIVE checkpoints instead: they never block the writer, and WAL mode lets
 * both connections work at once. Closing the daemon's connection last checkpoints what is left.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

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
  readonly onError?: (message: string) => void;
  /** Restarts of a worker that died before the checkpointer gives up on it (default 3). */
  readonly maxRestarts?: number;
  /**
   * Called once when the worker cannot be kept alive: the caller turns SQLite's automatic
   * checkpoint back on for its connection, so the WAL never grows without bound.
   */
  readonly onFallback?: () => void;
}

// The worker is CommonJS source evaluated in its own thread: it needs no file of its own, so it
// works the same from the sources, the esbuild CLI bundle and the Electron main bundle.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const report = (e) => parentPort.postMessage({ error: String((e && e.message) || e) });
let db;
try {
  const Database = require(workerData.modulePath);
  db = new Database(workerData.file, { fileMustExist: true });
  db.pragma('busy_timeout = 1000');
} catch (e) {
  // SQLite's error class does not survive the thread boundary: send its message instead.
  report('cannot open ' + workerData.file + ': ' + ((e && e.message) || e));
  parentPort.close();
}
if (db) {
  const timer = setInterval(() => {
    try { db.pragma('wal_checkpoint(PASSIVE)'); } catch (e) { report(e); }
  }, workerData.intervalMs);
  parentPort.on('message', (m) => {
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

  const spawn = (): void => {
    const w = new Worker(WORKER_SOURCE, {
      eval: true,
      workerData: { file, modulePath, intervalMs: options.intervalMs ?? 500 },
    });
    w.unref();
    w.on('message', (m: { error?: string }) => {
      if (m?.error) options.onError?.(m.error);
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
