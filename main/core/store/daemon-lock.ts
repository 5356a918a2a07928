/**
 * The data directory's ownership lock: `daemon.lock`, a tiny SQLite file held in EXCLUSIVE locking
 * mode by whoever may write `companion.db` behind the daemon's back (the running daemon, or a CLI
 * command while no daemon runs). The lock is the operating system's (a POSIX/Win32 file lock SQLite
 * takes), so it dies with its holder: a `kill -9` frees it at once and a stale pid can never keep
 * it. `daemon.json` says who holds it (a daemon's pid and where it listens, or a command's pid and
 * name); it never proves that one runs, so a pid is named only while that process is alive.
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

/** What `daemon.json` says about the holder of the data directory (fields null while unknown). */
export interface LockHolder {
  readonly pid: number | null;
  readonly url: string | null;
  /** The command holding the directory (`steering off`), or null for a daemon. */
  readonly command: string | null;
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

const NOBODY: LockHolder = { pid: null, url: null, command: null };

/** Whether a process with this pid runs (one that exists but is not ours to signal runs too). */
export function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Who `daemon.json` names as the holder; all null when nothing is recorded, or when the recorded
 * process is gone (a record a killed holder left says nothing about who holds the lock now).
 */
export function recordedHolder(dataDir: string): LockHolder {
  let info: Record<string, unknown>;
  try {
    info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as Record<string, unknown>;
  } catch {
    return NOBODY;
  }
  const pid = typeof info.pid === 'number' && Number.isSafeInteger(info.pid) && info.pid > 0 ? info.pid : null;
  if (pid === null || !isAlive(pid)) return NOBODY;
  return {
    pid,
    url: typeof info.url === 'string' && info.url !== '' ? info.url : null,
    command: typeof info.command === 'string' && info.command !== '' ? info.command.slice(0, 80) : null,
  };
}

/**
 * Who holds the directory, for one-line messages: "a daemon (pid 123, http://127.0.0.1:8787)",
 * "the command `aep-companion steering off` (pid 123)", or a process that recorded nothing.
 */
export function describeHolder(holder: LockHolder): string {
  if (holder.pid === null) return 'a process that recorded nothing in daemon.json (no live daemon or command is named there)';
  if (holder.command !== null) return `the command \`aep-companion ${holder.command}\` (pid ${holder.pid})`;
  return `a daemon (pid ${holder.pid}, ${holder.url ?? 'URL not yet recorded: starting'})`;
}
