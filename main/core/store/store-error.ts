/** The store's thrown failure: a stable code plus a one-line message the `serve` command prints. */

/** Why the store could not do its job. */
export type StoreErrorCode = 'newer-schema' | 'corrupt' | 'unwritable' | 'locked' | 'invalid-input';

/** A store failure with a stable code; `message` is a single line fit for a terminal. */
export class StoreError extends Error {
  override readonly name = 'StoreError';

  constructor(
    readonly code: StoreErrorCode,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message.replace(/\s*\n\s*/g, ' '), options);
  }
}

/** True when `value` is a StoreError (optionally with the given code). */
export const isStoreError = (value: unknown, code?: StoreErrorCode): value is StoreError =>
  value instanceof StoreError && (code === undefined || value.code === code);

/** Maps a better-sqlite3 failure to a StoreError with a one-line, path-bearing message; null for other errors (bugs). */
export function toStoreError(error: unknown, file: string): StoreError | null {
  const sqliteCode =
    typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : '';
  const detail = error instanceof Error ? error.message : String(error);
  const code = classify(sqliteCode, detail);
  if (code === null) return null;
  const what: Record<StoreErrorCode, string> = {
    corrupt: `database ${file} is corrupt or not an SQLite database`,
    unwritable: `cannot write database ${file}`,
    locked: `database ${file} is locked by another process`,
    'newer-schema': `database ${file} is newer than this build`,
    'invalid-input': `database ${file} rejected the input`,
  };
  return new StoreError(code, `${what[code]} (${detail})`, { cause: error });
}

function classify(sqliteCode: string, detail: string): StoreErrorCode | null {
  if (sqliteCode === 'SQLITE_NOTADB' || sqliteCode.startsWith('SQLITE_CORRUPT')) return 'corrupt';
  if (sqliteCode.startsWith('SQLITE_BUSY') || sqliteCode.startsWith('SQLITE_LOCKED'))
    return 'locked';
  if (/directory does not exist/i.test(detail)) return 'unwritable';
  if (
    sqliteCode.startsWith('SQLITE_CANTOPEN') ||
    sqliteCode.startsWith('SQLITE_READONLY') ||
    sqliteCode.startsWith('SQLITE_PERM') ||
    sqliteCode.startsWith('SQLITE_IOERR') ||
    sqliteCode.startsWith('SQLITE_FULL') ||
    sqliteCode === 'SQLITE_AUTH'
  ) {
    return 'unwritable';
  }
  // Anything else (SQL errors, constraint failures, misuse) is a bug or a caller's problem, not the
  // file's: the original error is kept so its cause is not hidden behind an operator-facing code.
  return null;
}
