/**
 * The data directory's ownership lock: `daemon.lock`, a tiny SQLite file held in EXCLUSIVE locking
 * mode by whoever may write `companion.db` behind the daemon's back (the running daemon, or a CLI
 * command while no daemon runs). The lock is the operating system's (a POSIX/Win32 file lock SQLite
 * takes), so it dies with its holder: a `kill -9` frees it at once and a stale pid can never keep
 * it. `daemon.json` only says where the holder listens; it never proves that one runs.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';

/** The lock file's name inside the data directory. */
export const LOCK_FILE = 'daemon.lock';

/** A held lock; `release()` frees it (idempotent). */
export interface DataDirLock {
  release(): void;
}

/** What `daemon.json` says about the daemon holding the data directory (fields absent while unknown). */
export interface LockHolder {
  readonly pid: number | null;
  readonly url: string | null;
}

/**
 * Takes the data directory's lock without waiting; null when another process (or another daemon in
 * this process) holds it. Throws on an unusable lock file (unwritable directory, not SQLite).
 * `nativeBinding`: as `OpenDbOptions.nativeBinding`.
 */
export function tryLockDataDir(dataDir: string, nativeBinding?: string): DataDirLock | null {
  const db = new Database(join(dataDir, LOCK_FILE), { timeout: 0, nativeBinding });
  try {
    db.pragma('locking_mode = EXCLUSIVE');
    // The first write takes the EXCLUSIVE lock; in this locking mode it is kept after COMMIT.
    db.exec('BEGIN EXCLUSIVE; CREATE TABLE IF NOT EXISTS holder (x); COMMIT;');
  } catch (e) {
    db.close();
    if ((e as { code?: string }).code === 'SQLITE_BUSY') return null;
    throw e;
  }
  let held = true;
  return {
    release() {
      if (!held) return;
      held = false;
      db.close();
    },
  };
}

/** Who `daemon.json` names as the holder (pid and URL), each null when not recorded. */
export function recordedHolder(dataDir: string): LockHolder {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as Record<string, unknown>;
    return {
      pid: typeof info.pid === 'number' ? info.pid : null,
      url: typeof info.url === 'string' && info.url !== '' ? info.url : null,
    };
  } catch {
    return { pid: null, url: null };
  }
}

/** "pid 123, http://127.0.0.1:8787" (or what of it is known) for one-line messages. */
export function describeHolder(holder: LockHolder): string {
  const parts = [
    holder.pid === null ? 'pid unknown' : `pid ${holder.pid}`,
    holder.url ?? 'URL not yet recorded (starting)',
  ];
  return parts.join(', ');
}
