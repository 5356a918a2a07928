/**
 * Every SQLite connection the store opens loads the binding it is given (`nativeBinding`): the
 * daemon's own (openDb) and the data directory's lock. Each gets a copy of the tree's binding under a path of its own, and the process's
 * memory map shows that copy loaded (Linux); a binding that does not exist is reported by each.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tryLockDataDir } from '../../../main/core/store/daemon-lock';
import { openDb } from '../../../main/core/store/open-db';
import { sqlitePackageDir } from '../../../scripts/sqlite-binding-path.mjs';
import { tempDir } from './temp-db';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

/** A copy of the tree's binding at a path named for `who`. */
function bindingCopy(who: string): string {
  const dir = join(tmp.dir, `binding-${who}`);
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'better_sqlite3.node');
  copyFileSync(join(sqlitePackageDir(), 'build', 'Release', 'better_sqlite3.node'), file);
  return file;
}

const loaded = (file: string): boolean => readFileSync('/proc/self/maps', 'utf8').includes(file);

describe.skipIf(process.platform !== 'linux')('the SQLite binding given to the store', () => {
  it('is what openDb and the lock load', () => {
    const dataDir = join(tmp.dir, 'data');
    mkdirSync(dataDir);
    const file = join(dataDir, 'companion.db');

    const forDb = bindingCopy('db');
    const db = openDb(file, { nativeBinding: forDb });
    expect(loaded(forDb)).toBe(true);

    const forLock = bindingCopy('lock');
    const lock = tryLockDataDir(dataDir, forLock);
    expect(lock).not.toBeNull();
    expect(loaded(forLock)).toBe(true);

    lock!.release();
    db.close();
  });

  it('is reported by each when it does not exist, naming the file', () => {
    const missing = join(tmp.dir, 'no-such-binding', 'better_sqlite3.node');
    const dataDir = join(tmp.dir, 'data-missing');
    mkdirSync(dataDir);
    const file = join(dataDir, 'companion.db');
    expect(() => openDb(file, { nativeBinding: missing })).toThrow(/no-such-binding/);
    expect(() => tryLockDataDir(dataDir, missing)).toThrow(/no-such-binding/);

  });
});
