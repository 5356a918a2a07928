/**
 * The one SQLite opener: fixed pragmas, then the numbered migrations keyed by `user_version`.
 * SQLite's WAL is the only log: a COMMIT is durable against a kill -9 (synchronous=NORMAL), and
 * SQLite's own automatic checkpoint keeps the WAL short, the file cut back to `journal_size_limit`.
 */
import { chmodSync, closeSync, existsSync, openSync, rmSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { applyLegacyJournal, dropLegacyMarks, legacyIntakePath, legacyJournalPath, type LegacyReport } from './legacy-upgrade';
import { migrations as defaultMigrations, type Migration } from './migrations/index';
import { StoreError, toStoreError } from './store-error';

/** Options for `openDb`; the defaults are what the daemon uses. */
export interface OpenDbOptions {
  /** How long a statement waits for another connection's lock before failing (ms). */
  readonly busyTimeoutMs?: number;
  /** The schema steps to apply; tests pass their own list to exercise the runner. */
  readonly migrations?: readonly Migration[];
  /** The connection's page cache in KiB (default `DEFAULT_CACHE_KIB`). */
  readonly cacheKiB?: number;
  /** Hears what the upgrade of an earlier version's commit journal did (legacy-upgrade.ts). */
  readonly onLegacy?: LegacyReport;
  /**
   * better-sqlite3's native binding to load (its `nativeBinding` option): the host passes one built
   * for its runtime's ABI when that is not the ABI the package was built for (Electron's main
   * process). Absent: the package's own build.
   */
  readonly nativeBinding?: string;
}

const DEFAULT_BUSY_TIMEOUT_MS = 5_000;

/**
 * Page cache per connection: 8 MiB holds the hot B-tree pages of the event tables (appends touch
 * the right edge; replays read a page at a time). better-sqlite3 is built with 16 MB per connection,
 * memory a long-running daemon keeps whether or not it helps.
 */
export const DEFAULT_CACHE_KIB = 8 * 1024;

/**
 * What the WAL file is cut back to after a checkpoint resets it (bytes). SQLite checkpoints at
 * 1,000 pages (about 4 MiB) by itself; the file keeps at most this much of a larger burst.
 */
export const JOURNAL_SIZE_LIMIT = 8 * 1024 * 1024;

/**
 * Opens (creating if absent) the database at `file`, sets WAL, synchronous=NORMAL,
 * foreign_keys=ON and busy_timeout, and migrates it in one transaction.
 * Throws `StoreError` ('newer-schema' | 'corrupt' | 'unwritable' | 'locked') with a one-line message.
 */
export function openDb(file: string, options: OpenDbOptions = {}): Database {
  const steps = options.migrations ?? defaultMigrations;
  checkOrder(steps);
  let db: Database;
  try {
    // SQLite creates the -wal and -shm files with the database file's mode: create it 0600 first.
    precreate(file);
    db = new BetterSqlite3(file, { nativeBinding: options.nativeBinding });
  } catch (error) {
    throw toStoreError(error, file) ?? error;
  }
  try {
    db.pragma(
      `busy_timeout = ${Math.max(0, Math.trunc(options.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS))}`,
    );
    // journal_mode is the first statement that reads the file, so a garbage file fails here.
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    // A negative cache_size is in KiB, so the bound does not depend on the page size.
    db.pragma(`cache_size = -${Math.max(64, Math.trunc(options.cacheKiB ?? DEFAULT_CACHE_KIB))}`);
    db.pragma(`journal_size_limit = ${JOURNAL_SIZE_LIMIT}`);
    ownerOnly(file);
    // Turns an earlier version acknowledged and had not applied yet are written back first, in
    // the schema that version wrote them for.
    const onDisk = file !== ':memory:' && file !== '';
    if (onDisk) applyLegacyJournal(db, file, options.onLegacy);
    migrate(db, file, steps);
    if (onDisk) dropLegacyMarks(db, file);
    return db;
  } catch (error) {
    db.close();
    throw error instanceof StoreError ? error : (toStoreError(error, file) ?? error);
  }
}

/** Creates an absent database file 0600; when that fails, SQLite's own open reports why. */
function precreate(file: string): void {
  if (file === ':memory:' || file === '' || existsSync(file)) return;
  try {
    // An earlier version's logs left beside a database that is gone belong to it, not this one.
    rmSync(legacyJournalPath(file), { force: true });
    rmSync(legacyIntakePath(file), { force: true });
    closeSync(openSync(file, 'a', 0o600));
  } catch {
    // The open below fails with the store's own error (unwritable, missing directory).
  }
}

/** Database, WAL and shared-memory files are the owner's alone (0600), also when created earlier. */
function ownerOnly(file: string): void {
  if (file === ':memory:' || process.platform === 'win32') return;
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    try {
      if ((statSync(f).mode & 0o077) !== 0) chmodSync(f, 0o600);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/** The schema version the given migrations produce (the last one's version, 0 for none). */
export const latestVersion = (steps: readonly Migration[] = defaultMigrations): number =>
  steps.length === 0 ? 0 : steps[steps.length - 1].version;

function migrate(db: Database, file: string, steps: readonly Migration[]): void {
  const latest = latestVersion(steps);
  const current = () => db.pragma('user_version', { simple: true }) as number;
  if (current() > latest) throw newerSchema(file, current(), latest);
  if (current() === latest) return;
  // IMMEDIATE takes the write lock before re-reading the version, so two processes opening the
  // same fresh file cannot both run the same migration.
  db.transaction(() => {
    const from = current();
    if (from > latest) throw newerSchema(file, from, latest);
    for (const step of steps) {
      if (step.version > from) step.up(db);
    }
    db.pragma(`user_version = ${latest}`);
  }).immediate();
}

function checkOrder(steps: readonly Migration[]): void {
  steps.forEach((step, i) => {
    if (
      !Number.isInteger(step.version) ||
      step.version <= 0 ||
      (i > 0 && step.version <= steps[i - 1].version)
    ) {
      // A programming error in migrations/index.ts, not an operator problem.
      throw new Error(
        `migrations must have ascending positive integer versions; '${step.name}' (${step.version}) is out of order`,
      );
    }
  });
}

const newerSchema = (file: string, found: number, latest: number): StoreError =>
  new StoreError(
    'newer-schema',
    `database ${file} has schema version ${found}, newer than this build supports (${latest}); use a newer AEP Companion or another data directory`,
  );
