/**
 * Replay-all in one pass (`EventStore.replayHeld`, migration 0120) over a real SQLite file: the
 * sessions whose rows are in session order when read by row number come back in one pass, each in
 * session order and byte for byte; a session admitted below a position it already held is left out
 * and named, so it is replayed on its own; the pass stops at the rows stored when it was asked for.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from 'better-sqlite3';
import { EventStore, type AdmitItem, type StoredEvent } from '../../../main/core/store/event-store';
import { migrations } from '../../../main/core/store/migrations';
import { openDb } from '../../../main/core/store/open-db';
import { event, storeAtOldSchema, tempDir } from './temp-db';

const item = (e: ReturnType<typeof event>): AdmitItem => ({ event: e, json: JSON.stringify(e) });
const flat = (pages: Iterable<StoredEvent[]>): StoredEvent[] => [...pages].flat();
const keysOf = (rows: readonly StoredEvent[], session: string): number[][] =>
  rows.filter((r) => r.session === session).map((r) => [r.epoch, r.seq]);

describe('EventStore.replayHeld', () => {
  let t = tempDir();
  let db: Database | undefined;
  afterEach(() => {
    db?.close();
    db = undefined;
    t.cleanup();
    t = tempDir();
  });

  it('reads every in-order session in one pass in row order, each in session order, and names a session admitted below its highest position', () => {
    db = openDb(t.file());
    const store = new EventStore(db, { maxEventsPerSession: 10_000 });
    const admitted: AdmitItem[] = [];
    for (let seq = 1; seq <= 400; seq++)
      for (const session of ['a', 'b', 'c']) admitted.push(item(event({ session, seq, epoch: seq > 300 ? 1 : 0 })));
    // A foreign emitter's seq-less event is anchored after what the session holds: never out of order.
    admitted.push(item(event({ session: 'c', seq: undefined })));
    for (let i = 0; i < admitted.length; i += 100) store.admitNow(admitted.slice(i, i + 100));
    // b is backfilled below its highest position.
    const backfill = item(event({ session: 'b', seq: 150, epoch: 0, id: 'late' }));
    expect(store.admitNow([backfill])).toEqual([true]);

    const held = store.replayHeld();
    expect(held.disordered).toEqual(['b']);
    const pages = [...held.pages];
    expect(pages.every((p) => p.length <= 256)).toBe(true);
    const rows = pages.flat();
    expect(rows.map((r) => r.json)).toEqual(admitted.filter((x) => x.event.session !== 'b').map((x) => x.json));
    for (const session of ['a', 'c']) {
      const keys = keysOf(rows, session);
      expect(keys).toEqual([...keys].sort((x, y) => x[0] - y[0] || x[1] - y[1]));
    }
    expect(rows.at(-1)!.sequenced).toBe(false);
    // The session left out replays on its own, in session order, backfilled row included.
    const b = flat(store.replayPages('b', null));
    expect(b).toHaveLength(401);
    expect(b.map((r) => r.seq)).toEqual([...b.map((r) => r.seq)].sort((x, y) => x - y));
  });

  it('reports each row\'s own and ordering position the same in the pass and a session at a time, across pages', () => {
    db = openDb(t.file());
    // Pages of 2 rows: the per-session read resumes from positions decoded from its last row.
    const store = new EventStore(db, { maxEventsPerSession: 10_000, replayPageSize: 2 });
    const rows = [
      event({ session: 'p', seq: 1 }),
      event({ session: 'p', seq: 2, epoch: 0 }),
      event({ session: 'p', seq: 3, epoch: 2 }),
      // Seq-less events are anchored at the latest key held, (2, 3), with ties 1 and 2; an epoch
      // without a seq is no position of the event's own.
      event({ session: 'p', seq: undefined, epoch: 5 }),
      event({ session: 'p', seq: undefined }),
      event({ session: 'p', seq: 4, epoch: 2 }),
    ];
    expect(store.admitNow(rows.map(item))).toEqual(rows.map(() => true));
    const positions = (got: readonly StoredEvent[]) =>
      got.map(({ json, sequenced, ownEpoch, ownSeq, epoch, seq }) => ({ json, sequenced, ownEpoch, ownSeq, epoch, seq }));
    const expected = [
      { sequenced: true, ownEpoch: undefined, ownSeq: 1, epoch: 0, seq: 1 },
      { sequenced: true, ownEpoch: 0, ownSeq: 2, epoch: 0, seq: 2 },
      { sequenced: true, ownEpoch: 2, ownSeq: 3, epoch: 2, seq: 3 },
      { sequenced: false, ownEpoch: undefined, ownSeq: undefined, epoch: 2, seq: 3 },
      { sequenced: false, ownEpoch: undefined, ownSeq: undefined, epoch: 2, seq: 3 },
      { sequenced: true, ownEpoch: 2, ownSeq: 4, epoch: 2, seq: 4 },
    ].map((p, i) => ({ json: JSON.stringify(rows[i]), ...p }));
    const held = store.replayHeld();
    expect(held.disordered).toEqual([]);
    expect(positions(flat(held.pages))).toEqual(expected);
    expect(positions(flat(store.replayPages('p', null)))).toEqual(expected);
    // Resuming after (2, 3) replays the seq-less rows anchored there again (at-least-once), then seq 4.
    expect(positions(flat(store.replayPages('p', { epoch: 2, seq: 3 })))).toEqual(expected.slice(3));
  });

  it('reads only the rows stored when it was asked for', () => {
    db = openDb(t.file());
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    store.admitNow([1, 2, 3].map((seq) => item(event({ session: 'a', seq }))));
    const held = store.replayHeld();
    store.admitNow([item(event({ session: 'a', seq: 4 })), item(event({ session: 'n', seq: 1 }))]);
    expect(flat(held.pages).map((r) => r.seq)).toEqual([1, 2, 3]);
    expect(flat(store.replayHeld().pages).map((r) => [r.session, r.seq])).toEqual([['a', 1], ['a', 2], ['a', 3], ['a', 4], ['n', 1]]);
  });

  it('compares with what was held before the store started, and keeps the mark across a reopen', () => {
    const file = t.file();
    db = openDb(file);
    new EventStore(db, { maxEventsPerSession: 100 }).admitNow([1, 2, 5].map((seq) => item(event({ session: 'a', seq }))));
    db.close();
    db = openDb(file);
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    expect(store.admitNow([item(event({ session: 'a', seq: 6 }))])).toEqual([true]);
    expect(store.replayHeld().disordered).toEqual([]);
    expect(store.admitNow([item(event({ session: 'a', seq: 3 }))])).toEqual([true]);
    expect(store.replayHeld().disordered).toEqual(['a']);
    db.close();
    db = openDb(file);
    const reopened = new EventStore(db, { maxEventsPerSession: 100 });
    expect(reopened.replayHeld().disordered).toEqual(['a']);
    expect(flat(reopened.replayHeld().pages)).toEqual([]);
    expect(flat(reopened.replayPages('a', null)).map((r) => r.seq)).toEqual([1, 2, 3, 5, 6]);
  });

  it('marks, when upgrading to 0120, the sessions already held out of row order and no other', () => {
    const file = t.file();
    const old = openDb(file, { migrations: migrations.filter((m) => m.version < 120) });
    storeAtOldSchema(old, [
      event({ session: 'late', seq: 1 }),
      event({ session: 'fine', seq: 1 }),
      event({ session: 'late', seq: 3 }),
      event({ session: 'fine', seq: 2 }),
      event({ session: 'late', seq: 2 }),
      event({ session: 'fine', seq: 2, epoch: 1 }),
    ]);
    old.close();
    db = openDb(file);
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const held = store.replayHeld();
    expect(held.disordered).toEqual(['late']);
    expect(flat(held.pages).map((r) => [r.session, r.epoch, r.seq])).toEqual([['fine', 0, 1], ['fine', 0, 2], ['fine', 1, 2]]);
  });
});
