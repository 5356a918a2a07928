import { existsSync, statSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStore } from '../../../main/core/store/event-store';
import { openDb } from '../../../main/core/store/open-db';
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
