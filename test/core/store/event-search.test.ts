/** The FTS5 index of migration 0090: what is indexed, the backfill of existing rows, deletes. */
import type { Database } from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventSearch, SearchQueryError, textQuery } from '../../../main/core/store/event-search';
import { EventStore } from '../../../main/core/store/event-store';
import {
  FIRST_RUN_BATCH,
  SearchIndexer,
  STEP_BUDGET_MS,
} from '../../../main/core/store/search-indexer';
import { migrations } from '../../../main/core/store/migrations/index';
import { openDb } from '../../../main/core/store/open-db';
import { event, items, storeAtOldSchema, tempDir } from './temp-db';

let t: ReturnType<typeof tempDir> | undefined;
let db: Database | undefined;
afterEach(() => {
  db?.close();
  t?.cleanup();
  db = undefined;
  t = undefined;
});

/** Indexes what is stored (as a search does first), then searches. */
const ids = (s: EventSearch, q: string, session?: string): string[] => {
  const indexer = new SearchIndexer(db!, { everyMs: 0, batch: 7 });
  indexer.catchUp();
  return s.search({ q, session, limit: 50 }).hits.map((h) => h.id);
};

/** Admits `count` events of session `s` from seq `from`, each with the message `m<seq>`. */
const admitter = (store: EventStore) => (from: number, count: number) =>
  store.admit(
    items(
      ...Array.from({ length: count }, (_, i) =>
        event({ session: 's', seq: from + i, epoch: 0, data: { message: `m${from + i}` } }),
      ),
    ),
  );
describe('event search index', () => {
  it('indexes the text leaves of data (nested too), not digests, types or envelope ids', async () => {
    t = tempDir();
    db = openDb(t.file());
    const store = new EventStore(db, { maxEventsPerSession: 1_000 });
    const a = event({
      session: 's1',
      seq: 1,
      epoch: 0,
      type: 'tool.requested',
      data: {
        tool: { name: 'Bash' },
        args_redacted: { command: 'git status --short' },
        args_digest: 'sha256:feedfacecafe',
      },
    });
    const b = event({
      session: 's1',
      seq: 2,
      epoch: 0,
      type: 'tool.completed',
      data: { tool: { name: 'Read' }, result_digest: 'sha256:0badc0de' },
    });
    await store.admit(items(a, b));
    const search = new EventSearch(db);
    expect(ids(search, 'git status')).toEqual([a.id]);
    expect(ids(search, 'Bash')).toEqual([a.id]);
    expect(ids(search, 'Read')).toEqual([b.id]);
    expect(ids(search, 'feedfacecafe')).toEqual([]);
    expect(ids(search, '0badc0de')).toEqual([]);
    expect(ids(search, 'completed')).toEqual([]);
    expect(() => search.search({ q: '"open', mode: 'advanced', limit: 5 })).toThrow(
      SearchQueryError,
    );
  });

  it('indexes events stored before the index existed, and in bounded batches', async () => {
    t = tempDir();
    const before = migrations.filter((m) => m.version < 90);
    db = openDb(t.file(), { migrations: before });
    const old = event({
      session: 'legacy',
      seq: 1,
      epoch: 0,
      data: { message: 'written before the index existed' },
    });
    storeAtOldSchema(db, [old]);
    db.close();
    db = openDb(t.file());
    expect(ids(new EventSearch(db), 'existed')).toEqual([old.id]);
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    await store.admit(
      items(
        ...Array.from({ length: 25 }, (_, i) =>
          event({ session: 'b', seq: i + 1, epoch: 0, data: { message: 'batch' } }),
        ),
      ),
    );
    const indexer = new SearchIndexer(db, { everyMs: 0, batch: 10 });
    expect([indexer.step(), indexer.step(), indexer.step(), indexer.step()]).toEqual([
      10, 10, 5, 0,
    ]);
    expect(await indexer.run()).toBe(0);
  });

  it('sizes background batches to the time budget: halves after a slow one, grows back after fast ones', async () => {
    t = tempDir();
    db = openDb(t.file());
    const admitMany = admitter(new EventStore(db, { maxEventsPerSession: 1_000 }));
    // Each batch "takes" what the clock advances between its two readings.
    let clock = 0;
    let perBatch = STEP_BUDGET_MS + 1;
    let reading = 0;
    const now = (): number => (reading++ % 2 === 0 ? clock : (clock += perBatch));
    const indexer = new SearchIndexer(db, { everyMs: 0, batch: 64, now });
    await admitMany(1, 200);
    expect(indexer.backgroundBatch).toBe(64);
    // Slow batches: 64 → 32 → 16 → 8 (the floor), everything still indexed.
    expect(await indexer.run()).toBe(200);
    expect(indexer.backgroundBatch).toBe(8);
    // Fast batches (under half the budget) double it again, up to the configured batch.
    perBatch = STEP_BUDGET_MS / 4;
    await admitMany(201, 200);
    expect(await indexer.run()).toBe(200);
    expect(indexer.backgroundBatch).toBe(64);
    expect(new EventSearch(db).search({ q: 'm400', limit: 5 }).hits).toHaveLength(1);
  });

  it('starts every background run with a small batch, however large the last run grew it', async () => {
    t = tempDir();
    db = openDb(t.file());
    const admitMany = admitter(new EventStore(db, { maxEventsPerSession: 1_000 }));
    // Every batch is fast: a run doubles its batch up to the configured 256.
    let clock = 0;
    const now = (): number => (clock += STEP_BUDGET_MS / 8);
    const indexer = new SearchIndexer(db, { everyMs: 0, batch: 256, now });
    await admitMany(1, 900);
    expect(await indexer.run()).toBe(900);
    expect(indexer.backgroundBatch).toBe(256);
    // The next run (after a pause in which a replay may have emptied the cache) starts small again.
    await admitMany(901, 100);
    const step = vi.spyOn(indexer, 'step');
    expect(await indexer.run()).toBe(100);
    expect(step.mock.calls.map(([limit]) => limit)).toEqual([FIRST_RUN_BATCH, 32, 64]);
    expect(new EventSearch(db).search({ q: 'm1000', limit: 5 }).hits).toHaveLength(1);
  });

  it('forgets trimmed events and stays in step through many trims', async () => {
    t = tempDir();
    db = openDb(t.file());
    const store = new EventStore(db, { maxEventsPerSession: 10 });
    const indexer = new SearchIndexer(db, { everyMs: 0 });
    for (let i = 0; i < 50; i++) {
      await store.admit(
        items(event({ session: 's', seq: i + 1, epoch: 0, data: { message: `word${i} common` } })),
      );
      if (i % 3 === 0) indexer.catchUp();
    }
    const search = new EventSearch(db);
    // Indexed while the trims go on: events indexed and then trimmed leave the index too.
    expect(ids(search, 'word39')).toEqual([]);
    expect(search.search({ q: 'common', limit: 200 }).hits).toHaveLength(10);
    expect(ids(search, 'word39')).toEqual([]);
    expect(ids(search, 'word40')).toHaveLength(1);
  });

  it('searches any typed text without an SQL error: it matches, finds nothing, or says why in a sentence', async () => {
    t = tempDir();
    db = openDb(t.file());
    const store = new EventStore(db, { maxEventsPerSession: 1_000 });
    const words = [
      'steer-probe',
      'src/app.ts',
      'ls -la',
      'a "quoted" word',
      'NOT (x) AND y*',
      'naïve café',
    ];
    await store.admit(
      items(
        ...words.map((message, i) =>
          event({ session: 's', seq: i + 1, epoch: 0, data: { message } }),
        ),
      ),
    );
    const indexer = new SearchIndexer(db, { everyMs: 0 });
    indexer.catchUp();
    indexer.close();
    const search = new EventSearch(db);
    const typed = fc.oneof(
      fc.string({ maxLength: 40 }),
      fc.string({
        unit: fc.constantFrom(
          '"',
          '*',
          '-',
          '(',
          ')',
          ':',
          '^',
          '+',
          ' ',
          'a',
          'AND',
          'OR',
          'NOT',
          'NEAR',
          '/',
          '.',
          'é',
        ),
        maxLength: 12,
      }),
    );
    fc.assert(
      fc.property(typed, (q) => {
        try {
          search.search({ q, limit: 10 });
        } catch (e) {
          expect(e).toBeInstanceOf(SearchQueryError);
          expect((e as Error).message).toMatch(/^Type /);
        }
      }),
      { numRuns: 400 },
    );
    // Each stored text is found by typing it as it appears.
    for (const w of words)
      expect(search.search({ q: w, limit: 10 }).hits.length, w).toBeGreaterThan(0);
    expect(textQuery('steer-probe "two words" x*')).toBe('"steer-probe" "two words" "x" *');
  });

  it('runs in the background only when woken by stored events: an idle indexer asks for no run', async () => {
    t = tempDir();
    db = openDb(t.file());
    const store = new EventStore(db, { maxEventsPerSession: 1_000 });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval'] });
    try {
      const indexer = new SearchIndexer(db, { everyMs: 250 });
      const step = vi.spyOn(indexer, 'step');
      // The start asks for one run (what an earlier start stored); then nothing, however long.
      vi.advanceTimersByTime(250);
      expect(step).toHaveBeenCalledTimes(1);
      vi.advanceTimersByTime(60_000);
      expect(step).toHaveBeenCalledTimes(1);
      await store.admit(items(event({ session: 's', seq: 1, epoch: 0, data: { message: 'woken by this' } })));
      indexer.wake();
      indexer.wake();
      vi.advanceTimersByTime(250);
      expect(step).toHaveBeenCalledTimes(2);
      expect(new EventSearch(db).search({ q: 'woken', limit: 5 }).hits).toHaveLength(1);
      indexer.close();
      indexer.wake();
      vi.advanceTimersByTime(60_000);
      expect(step).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });
});
