import { existsSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStore } from '../../../main/core/store/event-store';
import { openDb } from '../../../main/core/store/open-db';
import { deferredCommitOf } from '../../../main/core/store/deferred-commit';
import { startWalCheckpointer } from '../../../main/core/store/wal-checkpointer';
import { event, items, tempDir } from './temp-db';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const walSize = (file: string): number =>
  existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0;

describe('WAL size under continuous writes', () => {
  /** Commits 1,500 groups of 20 events (~600 bytes each) with no idle moment; returns the largest `-wal` size seen. */
  async function writeContinuously(maxWalBytes: number, errors: string[]): Promise<number> {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const file = t.file();
    const db = openDb(file, { autoCheckpoint: false });
    cleanups.push(() => db.close());
    const store = new EventStore(db, { maxEventsPerSession: 1_000_000 });
    const checkpointer = startWalCheckpointer(file, {
      intervalMs: 5,
      maxWalBytes,
      writer: db,
      onError: (m) => errors.push(m),
    });
    cleanups.push(() => checkpointer.stop());
    const body = 'x'.repeat(400);
    let largest = 0;
    // Every turn commits one group (the store's own group commit), and the next turn starts at once:
    // the writer is never idle long enough for a passive checkpoint to catch up with the WAL's end.
    for (let turn = 0; turn < 1_500; turn++) {
      const batch = Array.from({ length: 20 }, () => event({ data: { body } }));
      await store.admit(items(...batch));
      largest = Math.max(largest, walSize(file));
    }
    expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 30_000 });
    return largest;
  }

  it('stays near the bound while the event store commits group after group with no idle moment', async () => {
    const maxWalBytes = 4 * 1024 * 1024;
    const errors: string[] = [];
    const bounded = await writeContinuously(maxWalBytes, errors);
    expect(errors).toEqual([]);
    // The overshoot is what the writer appends between the worker's check and the restart: a bound
    // or two, more when the machine deschedules the worker thread. With nothing restarting it the
    // same writes grow the WAL to 35-75 MB (passive checkpoints fall behind); 8 bounds is 32 MiB.
    expect(bounded).toBeGreaterThan(0);
    expect(bounded).toBeLessThan(8 * maxWalBytes);
  });

  it('reports a WAL over the bound when no writer connection was given to restart it', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const file = t.file();
    const db = openDb(file, { autoCheckpoint: false });
    cleanups.push(() => db.close());
    const store = new EventStore(db, { maxEventsPerSession: 1_000_000 });
    const errors: string[] = [];
    const checkpointer = startWalCheckpointer(file, {
      intervalMs: 5,
      maxWalBytes: 64 * 1024,
      onError: (m) => errors.push(m),
    });
    cleanups.push(() => checkpointer.stop());
    const body = 'x'.repeat(400);
    while (errors.length === 0)
      await store.admit(items(...Array.from({ length: 20 }, () => event({ data: { body } }))));
    expect(errors[0]).toMatch(/over 65536.*no writer connection/);
  });
});

/** A store on a fresh file with automatic checkpoints off; `admitGroups(k)` admits k groups of 20 events (~600 bytes each). */
function storeOnFile(options: Parameters<typeof openDb>[1] = {}): {
  file: string;
  db: ReturnType<typeof openDb>;
  admitGroups: (groups: number) => Promise<void>;
} {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const file = t.file();
  const db = openDb(file, { autoCheckpoint: false, ...options });
  cleanups.push(() => db.close());
  const store = new EventStore(db, { maxEventsPerSession: 1_000_000 });
  const body = 'x'.repeat(400);
  const admitGroups = async (groups: number): Promise<void> => {
    for (let i = 0; i < groups; i++)
      await store.admit(items(...Array.from({ length: 20 }, () => event({ data: { body } }))));
  };
  return { file, db, admitGroups };
}

describe('WAL restart hand-over', () => {
  it("has the worker copy the writer's open deferred transaction before the writer's RESTART, which finds no frames left to copy", async () => {
    // Deferred commits with a window longer than the test: turns stay in the open transaction
    // until something commits it.
    const { file, db, admitGroups } = storeOnFile({
      deferCommits: { windowMs: 600_000, maxJournalBytes: 64 * 1024 * 1024 },
    });
    // Committed: a WAL over the bound. Then held in the open transaction: about 300 KB of pages.
    await admitGroups(60);
    deferredCommitOf(db)!.commit();
    const maxWalBytes = 256 * 1024;
    expect(walSize(file)).toBeGreaterThan(maxWalBytes);
    await admitGroups(30);
    expect(deferredCommitOf(db)!.isOpen).toBe(true);

    const restarts: Array<{ framesLeft: number; ms: number }> = [];
    const errors: string[] = [];
    const checkpointer = startWalCheckpointer(file, {
      intervalMs: 5,
      maxWalBytes,
      writer: db,
      onError: (m) => errors.push(m),
      onRestart: (r) => restarts.push(r),
    });
    cleanups.push(() => checkpointer.stop());
    while (restarts.length === 0) await new Promise((r) => setTimeout(r, 5));
    expect(errors).toEqual([]);
    // The open transaction was committed and copied by the worker before the RESTART: the writer
    // had nothing left to copy (it used to copy the whole open transaction, ~100 pages, and sync it).
    expect(restarts[0].framesLeft).toBe(0);
    expect(deferredCommitOf(db)!.isOpen).toBe(false);
    // And the WAL did start over: the next commit writes from the file's start.
    await admitGroups(1);
    deferredCommitOf(db)!.commit();
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
    expect(log).toBeLessThan(64);
    expect(db.prepare('SELECT count(*) AS n FROM events').get()).toEqual({ n: 91 * 20 });
  });
});

describe('WAL restart while idle', () => {
  it('restarts a WAL over the bound once, and not again until something is written', async () => {
    const { file, db, admitGroups } = storeOnFile();
    await admitGroups(60);
    const maxWalBytes = 256 * 1024;
    expect(walSize(file)).toBeGreaterThan(maxWalBytes);
    const restarts: Array<{ framesLeft: number; ms: number }> = [];
    const checkpointer = startWalCheckpointer(file, { intervalMs: 5, maxWalBytes, writer: db, onRestart: (r) => restarts.push(r) });
    cleanups.push(() => checkpointer.stop());
    while (restarts.length === 0) await new Promise((r) => setTimeout(r, 5));
    // Forty intervals with nothing written: the WAL index still counts the old frames (the WAL
    // starts over at the next write), which used to ask for a restart every interval.
    await new Promise((r) => setTimeout(r, 200));
    expect(restarts).toHaveLength(1);
    // Writing again starts the WAL over from its first frame.
    await admitGroups(1);
    const [{ log }] = db.pragma('wal_checkpoint(PASSIVE)') as Array<{ log: number }>;
    expect(log).toBeLessThan(64);
  });
});
