/**
 * The running daemon's claim on its data directory: the `daemon.lock` file lock (held for the
 * daemon's lifetime; see store/daemon-lock.ts) and `daemon.json`, which says where it listens.
 * `daemon.json` is written with the pid as soon as the lock is held, and with the URL right after the
 * listener bound (before any request is read), so the record exists before the daemon accepts
 * anything; it is removed on close, while the lock is still held.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeHolder, recordedHolder, tryLockDataDir } from './store/daemon-lock';

/** The daemon's claim on a data directory. */
export interface DataDirClaim {
  /** Records the listening URL in daemon.json. */
  recordUrl(url: string): void;
  /** Removes daemon.json and frees the lock (idempotent). */
  release(): void;
}

/** Why the claim failed: another holder (with its pid and URL as recorded), or an unusable lock file. */
export class ClaimError extends Error {
  constructor(
    readonly code: 'locked' | 'unusable',
    message: string,
  ) {
    super(message);
  }
}

function writeRecord(dataDir: string, record: { url?: string; pid: number }): void {
  const file = join(dataDir, 'daemon.json');
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/**
 * Takes the data directory for this process; throws `ClaimError` when another daemon holds it.
 * `nativeBinding`: SQLite's binding for this runtime (`OpenDbOptions.nativeBinding`).
 */
export function claimDataDir(dataDir: string, nativeBinding?: string): DataDirClaim {
  let lock;
  try {
    lock = tryLockDataDir(dataDir, nativeBinding);
  } catch (e) {
    throw new ClaimError('unusable', `cannot lock ${join(dataDir, 'daemon.lock')}: ${(e as Error).message}`);
  }
  if (lock === null) {
    throw new ClaimError(
      'locked',
      `another daemon already runs on ${dataDir} (${describeHolder(recordedHolder(dataDir))})`,
    );
  }
  const held = lock;
  try {
    writeRecord(dataDir, { pid: process.pid });
  } catch (e) {
    held.release();
    throw new ClaimError('unusable', `cannot write daemon.json in ${dataDir}: ${(e as Error).message}`);
  }
  let released = false;
  return {
    recordUrl(url) {
      writeRecord(dataDir, { url, pid: process.pid });
    },
    release() {
      if (released) return;
      released = true;
      rmSync(join(dataDir, 'daemon.json'), { force: true });
      held.release();
    },
  };
}
