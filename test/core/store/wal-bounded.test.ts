/**
 * The WAL stays bounded by SQLite's own automatic checkpoint: continuous group commits with no
 * idle moment keep the `-wal` file under `JOURNAL_SIZE_LIMIT`, and a WAL a long reader let grow
 * past it is cut back once the reader is gone.
 */
import { existsSync, statSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { EventStore } from '../../../main/core/store/event-store';
import { JOURNAL_SIZE_LIMIT, openDb } from '../../../main/core/store/open-db';
import { event, items, tempDir } from './temp-db';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const walSize = (file: string): number => (existsSync(`${file}-wal`) ? statSync(`${file}-wal`).size : 0);

/** A store on a fresh file; `admitGroups(k)` admits k groups of 20 events (~600 bytes each), one group commit each. */
function storeOnFile(): { file: string; admitGroups: (groups: number, seen?: (wal: number) => void) => Promise<void>; count: () => number } {
  const t = tempDir();
  cleanups.push(t.cleanup);
  const file = t.file();
  const db = openDb(file);
  cleanups.push(() => db.close());
  const store = new EventStore(db, { maxEventsPerSession: 1_000_000 });
  const body = 'x'.repeat(400);
  return {
    file,
    admitGroups: async (groups, seen) => {
      for (let i = 0; i < groups; i++) {
        await store.admit(items(...Array.from({ length: 20 }, () => event({ data: { body } }))));
        seen?.(walSize(file));
      }
    },
    count: () => db.prepare('SELECT count(*) FROM events').pluck().get() as number,
  };
}

describe('WAL size', () => {
  it('stays under the size limit while the store commits group after group with no idle moment', async () => {
    const { admitGroups, count } = storeOnFile();
    let largest = 0;
    // About 18 MB of events: several times what one automatic checkpoint lets the WAL hold.
    await admitGroups(1_500, (wal) => (largest = Math.max(largest, wal)));
    expect(count()).toBe(30_000);
    expect(largest).toBeGreaterThan(0);
    expect(largest).toBeLessThanOrEqual(JOURNAL_SIZE_LIMIT);
  });

  it('grows past the limit only while a reader holds an old snapshot, and is cut back once it is gone', async () => {
    const { file, admitGroups } = storeOnFile();
    await admitGroups(1);
    const reader = new BetterSqlite3(file, { readonly: true });
    cleanups.push(() => reader.close());
    reader.prepare('BEGIN').run();
    reader.prepare('SELECT count(*) FROM events').get();
    await admitGroups(1_200);
    expect(walSize(file)).toBeGreaterThan(JOURNAL_SIZE_LIMIT);
    reader.prepare('COMMIT').run();
    // The next checkpoints copy the WAL back and start it over; the file is cut to the limit.
    let last = Infinity;
    await admitGroups(400, (wal) => (last = wal));
    expect(last).toBeLessThanOrEqual(JOURNAL_SIZE_LIMIT);
  });
});
