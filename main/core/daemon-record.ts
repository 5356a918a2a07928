/**
 * The running daemon's claim on its data directory: the `daemon.lock` file lock (held for the
 * daemon's lifetime; see store/daemon-lock.ts) and `daemon.json`, which says where it listens.
 * `daemon.json` is written with the pid as soon as the lock is held, and with the URL right after the
 * listener bound (before any request is read), so the record exists before the daemon accepts
 * anything; it is removed on close, while the lock is still held. A CLI command that writes the
 * database while no daemon runs holds the same lock for a moment (`claimForCommand`), and records
 * itself in `daemon.json` the same way, so a daemon starting meanwhile can say who holds the
 * directory: it waits out a brief hold, and never names a process that is gone.
 */
import { renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeHolder, recordedHolder, tryLockDataDir, type DataDirLock, type LockHolder } from './store/daemon-lock';

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

/** How long a starting daemon waits for a holder that is not a running daemon (ms). */
export const DEFAULT_LOCK_WAIT_MS = 5_000;
const POLL_MS = 50;

function writeRecord(dataDir: string, record: { url?: string; pid: number; command?: string }): void {
  const file = join(dataDir, 'daemon.json');
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record)}\n`, { mode: 0o600 });
  renameSync(tmp, file);
}

/** Takes the lock, or null when another process holds it; throws `ClaimError` on an unusable lock file. */
function tryLock(dataDir: string, nativeBinding?: string): DataDirLock | null {
  try {
    return tryLockDataDir(dataDir, nativeBinding);
  } catch (e) {
    throw new ClaimError('unusable', `cannot lock ${join(dataDir, 'daemon.lock')}: ${(e as Error).message}`);
  }
}

/** Records `record` in daemon.json under a held lock; on failure frees the lock and throws `ClaimError`. */
function recordOrRelease(dataDir: string, lock: DataDirLock, record: { pid: number; command?: string }): void {
  try {
    writeRecord(dataDir, record);
  } catch (e) {
    lock.release();
    throw new ClaimError('unusable', `cannot write daemon.json in ${dataDir}: ${(e as Error).message}`);
  }
}

/** A claim whose release removes daemon.json, then frees the lock (idempotent). */
function heldClaim(dataDir: string, lock: DataDirLock): DataDirClaim {
  let released = false;
  return {
    recordUrl(url) {
      writeRecord(dataDir, { url, pid: process.pid });
    },
    release() {
      if (released) return;
      released = true;
      rmSync(join(dataDir, 'daemon.json'), { force: true });
      lock.release();
    },
  };
}

/**
 * Takes the data directory for this daemon. A holder that is not a running daemon (a CLI command,
 * a daemon still starting or stopping, a process that recorded nothing) is waited for, up to
 * `waitMs`, `onWait` hearing who holds it at each look; a running daemon (alive, its URL recorded)
 * is not. Throws `ClaimError` ('locked') with one line that says who holds the directory.
 */
export async function claimDataDir(
  dataDir: string,
  options: {
    readonly waitMs?: number;
    readonly onWait?: (holder: LockHolder) => void;
    /** SQLite's binding for this runtime (`OpenDbOptions.nativeBinding`). */
    readonly nativeBinding?: string;
  } = {},
): Promise<DataDirClaim> {
  const waitMs = Math.max(0, options.waitMs ?? DEFAULT_LOCK_WAIT_MS);
  const deadline = Date.now() + waitMs;
  for (;;) {
    const lock = tryLock(dataDir, options.nativeBinding);
    if (lock !== null) {
      recordOrRelease(dataDir, lock, { pid: process.pid });
      return heldClaim(dataDir, lock);
    }
    const holder = recordedHolder(dataDir);
    const running = holder.pid !== null && holder.command === null && holder.url !== null;
    if (running) throw new ClaimError('locked', `another daemon already runs on ${dataDir} (${describeHolder(holder)})`);
    if (Date.now() >= deadline)
      throw new ClaimError(
        'locked',
        `${dataDir} is held by ${describeHolder(holder)}, still after ${Math.round(waitMs / 100) / 10} s; try again once it is done`,
      );
    options.onWait?.(holder);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}

/**
 * Takes the data directory for a CLI command (`command` names it, e.g. "steering off") without
 * waiting: null when another process holds it. The claim records the command in daemon.json.
 */
export function claimForCommand(dataDir: string, command: string, nativeBinding?: string): DataDirClaim | null {
  const lock = tryLock(dataDir, nativeBinding);
  if (lock === null) return null;
  recordOrRelease(dataDir, lock, { pid: process.pid, command });
  return heldClaim(dataDir, lock);
}
