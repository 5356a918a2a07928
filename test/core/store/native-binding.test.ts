/**
 * Every SQLite connection the store opens loads the binding it is given (`nativeBinding`): the
 * daemon's own (openDb), the data directory's lock, the WAL checkpointer's worker and the replay
 * helper's worker. Each gets a copy of the tree's binding under a path of its own, and the process's
 * memory map shows that copy loaded (Linux); a binding that does not exist is reported by each.
 */
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tryLockDataDir } from '../../../main/core/store/daemon-lock';
import { openDb } from '../../../main/core/store/open-db';
import { ReplayHelper } from '../../../main/core/store/replay-helper';
import { startWalCheckpointer } from '../../../main/core/store/wal-checkpointer';
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

const until = async (done: () => boolean): Promise<void> => {
  for (let i = 0; i < 500 && !done(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe.skipIf(process.platform !== 'linux')('the SQLite binding given to the store', () => {
  it('is what openDb, the lock and both workers load', async () => {
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

    const forCheckpoints = bindingCopy('checkpoints');
    const errors: string[] = [];
    const checkpointer = startWalCheckpointer(file, {
      nativeBinding: forCheckpoints,
      intervalMs: 10,
      onError: (e) => errors.push(e),
    });
    await until(() => loaded(forCheckpoints));
    expect(loaded(forCheckpoints)).toBe(true);

    const forReplay = bindingCopy('replay');
    const helper = new ReplayHelper(file, 'SELECT 1, 2, 3, 4', {
      nativeBinding: forReplay,
      maxFailures: 1,
    });
    helper.want();
    await until(() => helper.state === 'ready' || helper.state === 'off');
    expect(helper.state).toBe('ready');
    expect(loaded(forReplay)).toBe(true);

    await helper.stop();
    await checkpointer.stop();
    expect(errors).toEqual([]);
    lock!.release();
    db.close();
  });

  it('is reported by each when it does not exist, naming the file', async () => {
    const missing = join(tmp.dir, 'no-such-binding', 'better_sqlite3.node');
    const dataDir = join(tmp.dir, 'data-missing');
    mkdirSync(dataDir);
    const file = join(dataDir, 'companion.db');
    expect(() => openDb(file, { nativeBinding: missing })).toThrow(/no-such-binding/);
    expect(() => tryLockDataDir(dataDir, missing)).toThrow(/no-such-binding/);

    openDb(file).close();
    const errors: string[] = [];
    const checkpointer = startWalCheckpointer(file, {
      nativeBinding: missing,
      maxRestarts: 0,
      onError: (e) => errors.push(e),
    });
    await until(() => errors.length > 0);
    await checkpointer.stop();
    expect(errors[0]).toMatch(/no-such-binding/);

    const helper = new ReplayHelper(file, 'SELECT 1, 2, 3, 4', {
      nativeBinding: missing,
      maxFailures: 1,
    });
    helper.want();
    await until(() => {
      helper.want();
      return helper.state === 'off';
    });
    expect(helper.state).toBe('off');
    expect(helper.lastError).toMatch(/no-such-binding/);
    await helper.stop();
  });
});
