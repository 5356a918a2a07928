import { describe, expect, it } from 'vitest';
import { StoreError, isStoreError, toStoreError } from '../../../main/core/store/store-error';

const sqliteError = (code: string, message: string) => Object.assign(new Error(message), { code });

describe('toStoreError', () => {
  it.each([
    ['SQLITE_NOTADB', 'corrupt'],
    ['SQLITE_CORRUPT', 'corrupt'],
    ['SQLITE_BUSY', 'locked'],
    ['SQLITE_LOCKED_SHAREDCACHE', 'locked'],
    ['SQLITE_CANTOPEN', 'unwritable'],
    ['SQLITE_READONLY_DBMOVED', 'unwritable'],
    ['SQLITE_IOERR_WRITE', 'unwritable'],
    ['SQLITE_FULL', 'unwritable'],
  ])('maps %s to %s with the file named on one line', (code, expected) => {
    const mapped = toStoreError(sqliteError(code, 'boom\nsecond line'), '/data/companion.db');
    expect(mapped?.code).toBe(expected);
    expect(mapped?.message).toContain('/data/companion.db');
    expect(mapped?.message).not.toContain('\n');
  });

  it('leaves plain SQL errors and non-SQLite errors alone (they are bugs, not operator problems)', () => {
    expect(toStoreError(sqliteError('SQLITE_ERROR', 'near "(": syntax error'), 'f')).toBeNull();
    expect(toStoreError(sqliteError('SQLITE_CONSTRAINT_TRIGGER', 'refused'), 'f')).toBeNull();
    expect(toStoreError(new RangeError('bad'), 'f')).toBeNull();
  });

  it('treats a missing directory as unwritable', () => {
    expect(
      toStoreError(new TypeError('Cannot open database because the directory does not exist'), 'f')
        ?.code,
    ).toBe('unwritable');
  });

  it('is recognised by isStoreError with and without a code', () => {
    const error = new StoreError('locked', 'x');
    expect(isStoreError(error)).toBe(true);
    expect(isStoreError(error, 'locked')).toBe(true);
    expect(isStoreError(error, 'corrupt')).toBe(false);
    expect(isStoreError(new Error('x'))).toBe(false);
  });
});
