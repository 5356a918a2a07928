import { statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../main/core/store/open-db';
import {
  startWalCheckpointer,
  type WalCheckpointer,
} from '../../../main/core/store/wal-checkpointer';
import { tempDir } from './temp-db';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Writes enough rows that their pages sit in the WAL, not yet in the database file. */
function fillWal(db: ReturnType<typeof openDb>): void {
  db.exec('CREATE TABLE IF NOT EXISTS filler (id INTEGER PRIMARY KEY, body TEXT)');
  const insert = db.prepare('INSERT INTO filler (body) VALUES (?)');
  db.transaction(() => {
    for (let i = 0; i < 2000; i++) insert.run('x'.repeat(500));
  })();
}

/** Resolves once the database file has grown past `size` (the vitest timeout bounds the wait). */
async function fileGrowsPast(file: string, size: number): Promise<number> {
  for (;;) {
    const now = statSync(file).size;
    if (now > size) return now;
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('WAL checkpointer', () => {
  it('leaves committed pages in the WAL when automatic checkpoints are off and no checkpointer runs', () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const db = openDb(t.file(), { autoCheckpoint: false });
    cleanups.push(() => db.close());
    const before = statSync(t.file()).size;
    fillWal(db);
    expect(statSync(t.file()).size).toBe(before);
    expect(statSync(`${t.file()}-wal`).size).toBeGreaterThan(1_000_000);
  });

  it('copies the WAL into the database file from its worker thread, then stops cleanly', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const db = openDb(t.file(), { autoCheckpoint: false });
    cleanups.push(() => db.close());
    const errors: string[] = [];
    const checkpointer: WalCheckpointer = startWalCheckpointer(t.file(), {
      intervalMs: 10,
      onError: (m) => errors.push(m),
    });
    cleanups.push(() => checkpointer.stop());
    fillWal(db);
    // Checkpoints may copy the pages over several runs: wait until all of them are in the file.
    expect(await fileGrowsPast(t.file(), 1_000_000)).toBeGreaterThan(1_000_000);
    await checkpointer.stop();
    await checkpointer.stop();
    expect(errors).toEqual([]);
    // The daemon's own connection still works after the worker closed its connection.
    expect(db.prepare('SELECT count(*) AS n FROM filler').get()).toEqual({ n: 2000 });
  });

  it('reports a checkpoint failure instead of throwing', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const errors: string[] = [];
    const checkpointer = startWalCheckpointer(t.file('missing.db'), {
      intervalMs: 10,
      onError: (m) => errors.push(m),
    });
    cleanups.push(() => checkpointer.stop());
    while (errors.length === 0) await new Promise((r) => setTimeout(r, 10));
    expect(errors[0]).toMatch(/missing\.db|unable to open|does not exist/i);
  });
});

describe('WAL checkpointer faults', () => {
  it('starts a worker that died again, and the new one keeps checkpointing', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const db = openDb(t.file(), { autoCheckpoint: false });
    cleanups.push(() => db.close());
    const checkpointer = startWalCheckpointer(t.file(), { intervalMs: 10 });
    cleanups.push(() => checkpointer.stop());
    await checkpointer.crashWorker();
    expect(checkpointer.restarts).toBe(1);
    expect(checkpointer.mode).toBe('worker');
    fillWal(db);
    expect(await fileGrowsPast(t.file(), 1_000_000)).toBeGreaterThan(1_000_000);
  });

  it('falls back to automatic checkpoints when the worker keeps dying, so the WAL never grows unbounded', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const db = openDb(t.file(), { autoCheckpoint: false });
    cleanups.push(() => db.close());
    let fellBack = false;
    const checkpointer = startWalCheckpointer(t.file(), {
      intervalMs: 10,
      maxRestarts: 2,
      onFallback: () => {
        fellBack = true;
        // (the daemon restores SQLite's default of 1000 pages; a small threshold keeps this test small)
        db.pragma('wal_autocheckpoint = 100');
      },
    });
    cleanups.push(() => checkpointer.stop());
    for (let i = 0; i < 3; i++) await checkpointer.crashWorker();
    expect(checkpointer.mode).toBe('fallback');
    expect(checkpointer.restarts).toBe(2);
    expect(fellBack).toBe(true);
    // SQLite's own checkpoint now copies the pages into the file at commit.
    fillWal(db);
    expect(statSync(t.file()).size).toBeGreaterThan(1_000_000);
  });
});
