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

/** Starts checkpointing `file` every `intervalMs` in a worker thread; errors go to `onError`. */
export function startWalCheckpointer(
  file: string,
  options: { intervalMs?: number; onError?: (message: string) => void } = {},
): WalCheckpointer {
  const modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    workerData: { file, modulePath, intervalMs: options.intervalMs ?? 500 },
  });
  worker.unref();
  worker.on('message', (m: { error?: string }) => {
    if (m?.error) options.onError?.(m.error);
  });
  // A worker that cannot open the database dies with an error; the daemon keeps running (the WAL
  // is then checkpointed when the daemon's connection closes).
  worker.on('error', (e: unknown) =>
    options.onError?.(String((e as { message?: unknown } | null)?.message ?? e)),
  );
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  let stopping: Promise<void> | undefined;
  return {
    stop: () =>
      (stopping ??= (async () => {
        // Keep the process alive until the worker has closed its connection.
        worker.ref();
        worker.postMessage('stop');
        await exited;
      })()),
  };
}
