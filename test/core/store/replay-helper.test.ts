/**
 * The replay helper (store/replay-helper.ts): a worker thread with its own connection reads the
 * first part of each long session-replay page. Over real SQLite files, a replay split with the
 * helper returns exactly what a store without it returns (random interleaved, backfilled and
 * seq-less histories, resumed from random positions); rows this connection holds uncommitted are
 * never read from the helper's connection; a helper that fails or is too slow leaves the replay
 * whole; and the helper's connection closes when it idles or the store closes.
 */
import { existsSync } from 'node:fs';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { EventStore, type AdmitItem, type StoredEvent } from '../../../main/core/store/event-store';
import { deferredCommitOf } from '../../../main/core/store/deferred-commit';
import { openDb } from '../../../main/core/store/open-db';
import { ReplayHelper } from '../../../main/core/store/replay-helper';
import { event, items, tempDir } from './temp-db';

const tmp = tempDir();
afterAll(() => tmp.cleanup());

let dbCount = 0;
const freshFile = (): string => tmp.file(`helper-${++dbCount}.db`);

/** `count` sequenced events of `session`, seq `first` on, as admit items. */
const seqItems = (session: string, count: number, first = 1): AdmitItem[] =>
  Array.from({ length: count }, (_, i) => items(event({ session, seq: first + i }))[0]);

/** Reads a session's whole replay, pages checked against the page size. */
function readAll(store: EventStore, session: string, after: StoredEvent | null, pageSize: number): string[] {
  const out: string[] = [];
  for (const page of store.replayPages(session, after === null ? null : { epoch: after.epoch, seq: after.seq })) {
    expect(page.length).toBeLessThanOrEqual(pageSize);
    for (const row of page) {
      expect(row.session).toBe(session);
      out.push(`${row.json}|${row.type}|${row.epoch}|${row.seq}|${row.sequenced}|${row.ownEpoch}|${row.ownSeq}`);
    }
  }
  return out;
}

/** Waits (turns of the event loop) until the store's helper is ready, starting it with a replay. */
async function helperReady(store: EventStore, session: string): Promise<void> {
  for (let i = 0; i < 500 && store.replayHelperStats().state !== 'ready'; i++) {
    for (const _ of store.replayPages(session, null));
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  expect(store.replayHelperStats().state).toBe('ready');
}

/** `count` events over `sessions`, interleaved; some backfilled (older seq after newer), some seq-less. */
function history(count: number, sessions: number, seed: number): AdmitItem[] {
  const out: AdmitItem[] = [];
  const nextSeq = new Map<string, number>();
  let x = seed >>> 0 || 1;
  const rand = (): number => ((x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32);
  for (let i = 0; i < count; i++) {
    const session = `s${Math.floor(rand() * sessions)}`;
    const seq = (nextSeq.get(session) ?? 0) + 1;
    nextSeq.set(session, seq);
    const r = rand();
    const fields =
      r < 0.05
        ? { session, seq: undefined, type: 'foreign.note' }
        : { session, seq, epoch: r < 0.1 ? 1 : undefined, type: r < 0.3 ? 'turn.started' : 'tool.started' };
    out.push(...items(event(fields)));
  }
  // Backfill: a stretch of every tenth block arrives late.
  const late = out.filter((_, i) => i % 97 < 9);
  return [...out.filter((_, i) => i % 97 >= 9), ...late];
}

describe('ReplayHelper', () => {
  it('a split replay returns exactly what the store alone returns, from the start and from random positions (blocking or polling for the part)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 2 ** 30 }),
        fc.integer({ min: 1, max: 6 }),
        fc.constantFrom(64, 100, 256),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3, maxLength: 3 }),
        fc.constantFrom('block' as const, 'spin' as const),
        async (seed, sessions, pageSize, starts, wait) => {
          const file = freshFile();
          const db = openDb(file);
          const plain = new EventStore(db, { maxEventsPerSession: 100_000, replayPageSize: pageSize, replayHelper: false });
          const all = history(3_000, sessions, seed);
          for (let i = 0; i < all.length; i += 400) plain.admitNow(all.slice(i, i + 400));
          const split = new EventStore(db, {
            maxEventsPerSession: 100_000,
            replayPageSize: pageSize,
            replayHelper: { idleMs: 60_000, wait },
          });
          try {
            const held = plain.heldSessions();
            await helperReady(split, held[0]);
            const before = split.replayHelperStats().splitPages;
            for (const session of held) {
              const expected = readAll(plain, session, null, pageSize);
              expect(readAll(split, session, null, pageSize)).toEqual(expected);
              const rows = [...plain.replay(session, null)];
              for (const at of starts) {
                const from = rows[Math.floor(at * (rows.length - 1))];
                expect(readAll(split, session, from, pageSize)).toEqual(readAll(plain, session, from, pageSize));
              }
            }
            const stats = split.replayHelperStats();
            // The helper did read: a property that never split a page would prove nothing.
            expect(stats.splitPages).toBeGreaterThan(before);
            expect(stats.misses).toBe(0);
          } finally {
            await split.close();
            db.close();
          }
        },
      ),
      { numRuns: 12 },
    );
  }, 120_000);

  it('never reads from the helper what this connection holds uncommitted', async () => {
    const file = freshFile();
    const db = openDb(file);
    const store = new EventStore(db, { maxEventsPerSession: 100_000, replayPageSize: 128, replayHelper: { idleMs: 60_000 } });
    try {
      store.admitNow(seqItems('u', 3_000));
      await helperReady(store, 'u');
      const committed = readAll(store, 'u', null, 128);
      const splitBefore = store.replayHelperStats().splitPages;
      db.transaction(() => {
        // Same rows, other bytes (the helper's connection would read the old ones, same count),
        // and more rows (it would read fewer).
        db.prepare(`UPDATE events SET json = replace(json, '"tool.started"', '"tool.started" ') WHERE session = 'u'`).run();
        store.admitNow(seqItems('u', 500, 5_000));
        const inside = readAll(store, 'u', null, 128);
        expect(inside).toHaveLength(3_500);
        expect(inside.slice(0, 3_000)).toEqual(committed.map((r) => r.replace('"tool.started"', '"tool.started" ')));
        expect(store.replayHelperStats().splitPages).toBe(splitBefore);
      })();
      // Committed: the helper reads again, and sees the new bytes.
      const after = readAll(store, 'u', null, 128);
      expect(after).toHaveLength(3_500);
      expect(after[0]).toContain('"tool.started" ');
      expect(store.replayHelperStats().splitPages).toBeGreaterThan(splitBefore);
      expect(store.replayHelperStats().misses).toBe(0);
    } finally {
      await store.close();
      db.close();
    }
  });

  it("commits the daemon's deferred transaction early (not a caller's) so the helper sees what was admitted", async () => {
    const file = freshFile();
    // Deferred commits as the daemon opens its connection: admitted turns stay uncommitted up to 50 ms.
    const db = openDb(file, { deferCommits: {} });
    const store = new EventStore(db, { maxEventsPerSession: 100_000, replayPageSize: 128, replayHelper: { idleMs: 60_000 } });
    try {
      await store.admit(seqItems('d', 3_000));
      await helperReady(store, 'd');
      const deferred = deferredCommitOf(db)!;
      await store.admit(seqItems('d', 700, 10_000));
      expect(deferred.isOpen).toBe(true);
      const commits = deferred.stats().commits;
      const splitBefore = store.replayHelperStats().splitPages;
      const rows = readAll(store, 'd', null, 128);
      expect(rows).toHaveLength(3_700);
      expect(deferred.stats().commits).toBe(commits + 1);
      expect(deferred.isOpen).toBe(false);
      expect(store.replayHelperStats().splitPages).toBeGreaterThan(splitBefore);
      expect(store.replayHelperStats().misses).toBe(0);
    } finally {
      await store.close();
      db.close();
    }
  });

  it('a part read ahead is not used when this connection wrote in between', async () => {
    const file = freshFile();
    const db = openDb(file);
    const opts = { maxEventsPerSession: 100_000, replayPageSize: 128 };
    const store = new EventStore(db, { ...opts, replayHelper: { idleMs: 60_000 } });
    const plain = new EventStore(db, { ...opts, replayHelper: false });
    try {
      store.admitNow(seqItems('p', 4_000));
      await helperReady(store, 'p');
      for (const write of [
        // Same rows, other bytes: a part read before would hold the old ones.
        () => db.prepare(`UPDATE events SET json = json || ' ' WHERE session = 'p'`).run(),
        // Rows gone and rows added at the same place: the same count.
        () =>
          db.transaction(() => {
            db.prepare(`DELETE FROM events WHERE session = 'p' AND seq % 10 = 3`).run();
            const gone = db.prepare(`SELECT COUNT(*) FROM events WHERE session = 'p'`).pluck().get() as number;
            store.admitNow(
              seqItems('p', 4_000 - gone, 100_000),
            );
          })(),
      ]) {
        const pages = store.replayPages('p', null);
        const got: string[] = [];
        // Pages until one was split (the next page's part is then asked for ahead).
        let splitSeen = store.replayHelperStats().splitPages;
        let last: StoredEvent | undefined;
        for (let i = 0; i < 40; i++) {
          const page = pages.next().value as StoredEvent[];
          for (const row of page) got.push(row.json);
          last = page[page.length - 1];
          if (store.replayHelperStats().splitPages > splitSeen) break;
        }
        expect(store.replayHelperStats().splitPages).toBeGreaterThan(splitSeen);
        write();
        splitSeen = store.replayHelperStats().splitPages;
        const rest: string[] = [];
        for (let next = pages.next(); !next.done; next = pages.next()) for (const row of next.value) rest.push(row.json);
        expect(rest).toEqual([...plain.replay('p', { epoch: last!.epoch, seq: last!.seq })].map((r) => r.json));
        expect(store.replayHelperStats().splitPages).toBeGreaterThan(splitSeen);
        expect(got.length + rest.length).toBeGreaterThan(3_000);
      }
      expect(store.replayHelperStats().misses).toBe(0);
    } finally {
      await store.close();
      db.close();
    }
  });

  it('two replays that share the helper, one of them paused past a second, each get their own rows', async () => {
    const file = freshFile();
    const db = openDb(file);
    const opts = { maxEventsPerSession: 100_000, replayPageSize: 128 };
    const store = new EventStore(db, { ...opts, replayHelper: { idleMs: 60_000 } });
    const plain = new EventStore(db, { ...opts, replayHelper: false });
    try {
      const all: AdmitItem[] = [];
      for (let i = 0; i < 3_000; i++) all.push(...items(event({ session: i % 2 === 0 ? 'A' : 'B', seq: Math.floor(i / 2) + 1 })));
      store.admitNow(all);
      await helperReady(store, 'A');
      const a = store.replayPages('A', null);
      const gotA: string[] = [];
      // A's pages until one was split (its next part is then asked for ahead and left out).
      const before = store.replayHelperStats().splitPages;
      while (store.replayHelperStats().splitPages === before) for (const row of a.next().value as StoredEvent[]) gotA.push(row.json);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      // B takes the helper over (A's request is a second old); then the two go on a page each in turn.
      const b = store.replayPages('B', null);
      const gotB: string[] = [];
      for (let aDone = false, bDone = false; !aDone || !bDone; ) {
        if (!bDone) {
          const next = b.next();
          if (next.done) bDone = true;
          else for (const row of next.value) gotB.push(row.json);
        }
        if (!aDone) {
          const next = a.next();
          if (next.done) aDone = true;
          else for (const row of next.value) gotA.push(row.json);
        }
      }
      expect(gotA).toEqual([...plain.replay('A', null)].map((r) => r.json));
      expect(gotB).toEqual([...plain.replay('B', null)].map((r) => r.json));
      expect(store.replayHelperStats().splitPages).toBeGreaterThan(before + 2);
    } finally {
      await store.close();
      db.close();
    }
  });

  it('a helper too slow to answer is given up on and the replay stays whole', async () => {
    const file = freshFile();
    const db = openDb(file);
    // waitMs 0: every split page's helper part times out (unless it was already answered).
    const told: { message: string; off: boolean }[] = [];
    const store = new EventStore(db, {
      maxEventsPerSession: 100_000,
      replayPageSize: 128,
      replayHelper: { idleMs: 60_000, waitMs: 0, maxFailures: 2, onError: (message, off) => told.push({ message, off }) },
    });
    const plain = new EventStore(db, { maxEventsPerSession: 100_000, replayPageSize: 128, replayHelper: false });
    try {
      store.admitNow(seqItems('w', 2_000));
      const expected = readAll(plain, 'w', null, 128);
      for (let round = 0; round < 200 && store.replayHelperStats().state !== 'off'; round++) {
        expect(readAll(store, 'w', null, 128)).toEqual(expected);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const stats = store.replayHelperStats();
      expect(stats.state).toBe('off');
      expect(stats.lastError).toMatch(/no answer|exited/);
      expect(told.map((t) => t.off)).toEqual([false, true]);
      expect(readAll(store, 'w', null, 128)).toEqual(expected);
    } finally {
      await store.close();
      db.close();
    }
  });

  it('answers one request at a time, to its own ticket only, and a worker that dies is started again', async () => {
    const file = freshFile();
    const db = openDb(file);
    db.exec(`CREATE TABLE t (k INTEGER PRIMARY KEY, v TEXT)`);
    db.prepare(
      `WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 10) INSERT INTO t (v) SELECT 'row ' || i FROM c`,
    ).run();
    // The helper's statement takes (session, four key values, four key values): here k is the key.
    const sql = `SELECT v, 1, 2, 3 FROM t WHERE ? IS NOT NULL AND k > ? AND ? + ? + ? IS NOT NULL
      AND k <= ? AND ? + ? + ? IS NOT NULL ORDER BY k`;
    const helper = new ReplayHelper(file, sql, { maxFailures: 5 });
    const ready = async (): Promise<void> => {
      helper.want();
      for (let i = 0; i < 500 && helper.state !== 'ready'; i++) await new Promise((r) => setTimeout(r, 10));
      expect(helper.state).toBe('ready');
    };
    try {
      await ready();
      const first = helper.ask('x', [0, 0, 0, 0], [4, 0, 0, 0]);
      expect(first).toBeGreaterThan(0);
      expect(helper.take(first)).toEqual(['row 1', 1, 2, 3, 'row 2', 1, 2, 3, 'row 3', 1, 2, 3, 'row 4', 1, 2, 3]);
      // One request at a time: a second ask before the take is refused.
      const second = helper.ask('x', [0, 0, 0, 0], [1, 0, 0, 0]);
      expect(second).toBeGreaterThan(0);
      expect(helper.ask('x', [0, 0, 0, 0], [1, 0, 0, 0])).toBe(0);
      // Another caller's ticket gets nothing (its rows are not that caller's).
      expect(helper.take(first)).toBeNull();
      expect(helper.take(second)).toEqual(['row 1', 1, 2, 3]);
      expect(helper.take(second)).toBeNull();
      // A request cancelled: the next one's answer is the one taken (the first is dropped).
      const dropped = helper.ask('x', [0, 0, 0, 0], [2, 0, 0, 0]);
      helper.cancel(dropped);
      const third = helper.ask('x', [2, 0, 0, 0], [3, 0, 0, 0]);
      expect(helper.take(third)).toEqual(['row 3', 1, 2, 3]);
      // A request out when the worker dies: no answer, a failure counted, and a new worker.
      const lost = helper.ask('x', [0, 0, 0, 0], [10, 0, 0, 0]);
      expect(lost).toBeGreaterThan(0);
      await helper.crashWorker();
      expect(helper.take(lost)).toBeNull();
      expect(helper.lastError).toMatch(/exited/);
      await ready();
      const again = helper.ask('x', [8, 0, 0, 0], [10, 0, 0, 0]);
      expect(helper.take(again)).toEqual(['row 9', 1, 2, 3, 'row 10', 1, 2, 3]);
    } finally {
      await helper.stop();
      db.close();
    }
    expect(helper.state).toBe('off');
  });

  it('a file that cannot be opened turns the helper off with the reason', async () => {
    const helper = new ReplayHelper(tmp.file('missing.db'), 'SELECT 1', { maxFailures: 1 });
    helper.want();
    for (let i = 0; i < 500 && helper.state === 'starting'; i++) {
      await new Promise((r) => setTimeout(r, 10));
      helper.want();
    }
    expect(helper.state).toBe('off');
    expect(helper.lastError).toMatch(/cannot open/);
    await helper.stop();
  });

  it('idles out, closes its connection with the store, and an in-memory store has none', async () => {
    const file = freshFile();
    const db = openDb(file);
    const store = new EventStore(db, { maxEventsPerSession: 100_000, replayPageSize: 128, replayHelper: { idleMs: 100 } });
    store.admitNow(seqItems('i', 1_000));
    await helperReady(store, 'i');
    for (let i = 0; i < 200 && store.replayHelperStats().state !== 'idle'; i++) await new Promise((r) => setTimeout(r, 10));
    expect(store.replayHelperStats().state).toBe('idle');
    // Started again by the next long replay.
    await helperReady(store, 'i');
    await store.close();
    expect(store.replayHelperStats().state).toBe('off');
    // The daemon's connection is the last one: closing it checkpoints and removes the WAL.
    db.close();
    expect(existsSync(`${file}-wal`)).toBe(false);

    const memory = openDb(':memory:');
    const inMemory = new EventStore(memory, { maxEventsPerSession: 10 });
    expect(inMemory.replayHelperStats().state).toBe('none');
    memory.close();
  });
});
