/**
 * Session runs (store/session-runs.ts) over real SQLite files and real segment files: a replay
 * read from runs gives exactly what the table gives (the same rows, bytes, positions and order),
 * whatever happened to the runs or the table: rows admitted out of order, seq-less rows, duplicates,
 * retention, torn or missing segment files, a reopen. The reference is a second store on the same
 * database that keeps no runs, so its replay reads the table only.
 */
import { existsSync, readdirSync, statSync, truncateSync, unlinkSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Database } from 'better-sqlite3';
import { EventStore, type StorePosition, type StoredEvent } from '../../../main/core/store/event-store';
import { openDb } from '../../../main/core/store/open-db';
import { DENSE_SPAN, RUN_ROWS } from '../../../main/core/store/session-runs';
import type { AepEvent } from '../../../common/aep/envelope';
import { event, items, tempDir } from './temp-db';

/** What a replay tells a consumer, row by row. */
const seen = (rows: StoredEvent[]): unknown[] =>
  rows.map((r) => [r.json, r.type, r.session, r.epoch, r.seq, r.sequenced, r.ownEpoch, r.ownSeq]);

const replay = (store: EventStore, session: string, after: StorePosition | null): unknown[] =>
  seen([...store.replayPages(session, after)].flat());

/** A store keeping runs (no upkeep timer) and a table-only reference on one database. */
function open(file: string, max = 100_000): { db: Database; store: EventStore; table: EventStore; close: () => void } {
  const db = openDb(file);
  const store = new EventStore(db, { maxEventsPerSession: max, runs: { upkeepMs: 0 } });
  const table = new EventStore(db, { maxEventsPerSession: max, runs: false });
  return {
    db,
    store,
    table,
    close: () => {
      store.close();
      db.close();
    },
  };
}

/**
 * Rows of four filler sessions, one after each of a test's rows: a session's rows are then spread
 * over the table as with many sessions at once (a session dense in the table gets no runs: DENSE_SPAN).
 */
const FILLERS = ['~0', '~1', '~2', '~3'];
let fillerSeq = 0;
const fillers = (): AepEvent[] => {
  fillerSeq++;
  return FILLERS.map((session) => event({ session, seq: fillerSeq, epoch: 0 }));
};

/** Admits `count` sequenced events per session, interleaved (with fillers), in batches of 32 (as turns do). */
function fill(store: EventStore, sessions: readonly string[], count: number, firstSeq = 1): void {
  const all: AepEvent[] = [];
  for (let i = 0; i < count; i++)
    for (const session of sessions) {
      all.push(event({ session, seq: firstSeq + i, epoch: 0, type: i % 5 === 0 ? 'turn.started' : 'tool.started', data: { text: `${session} ${i} ✓` } }));
      all.push(...fillers());
    }
  for (let i = 0; i < all.length; i += 32) store.admitNow(items(...all.slice(i, i + 32)));
}

const segments = (dir: string): string[] => readdirSync(dir).filter((f) => f.endsWith('.runs')).sort();

describe('session runs', () => {
  it('replays interleaved sessions from their runs, byte for byte and in order, as the table does', () => {
    const tmp = tempDir();
    const file = tmp.file();
    const { store, table, close } = open(file);
    const sessions = ['a', 'b', 'c', 'd'];
    fill(store, sessions, 1_000);
    const runs = store.runs!;
    // A run for every 64 rows of each session and filler (fillers: 4 per row of a session).
    expect(runs.counts.written).toBe(4 * Math.floor(1_000 / RUN_ROWS) + 4 * Math.floor(4_000 / RUN_ROWS));
    for (const session of [...sessions, ...FILLERS].slice(0, 5)) {
      const fromRuns = replay(store, session, null);
      expect(fromRuns).toHaveLength(session.startsWith('~') ? 4_000 : 1_000);
      expect(fromRuns).toEqual(replay(table, session, null));
      // From inside a run, from a run's edge, and past the end.
      for (const seq of [1, 100, RUN_ROWS, RUN_ROWS + 1, 999, 1_000, 5_000])
        expect(replay(store, session, { epoch: 0, seq })).toEqual(replay(table, session, { epoch: 0, seq }));
    }
    expect(runs.counts.read).toBeGreaterThan(4 * 15);
    expect(runs.counts.refused).toBe(0);
    close();
    expect(segments(`${file}-runs`)).toHaveLength(1);
    tmp.cleanup();
  });

  it('reads the table where a run is torn, gone or no longer what the table holds', () => {
    const tmp = tempDir();
    const file = tmp.file();
    const { store, table, close } = open(file);
    fill(store, ['a', 'b'], 640);
    const [segment] = segments(`${file}-runs`);
    const path = join(`${file}-runs`, segment);
    const runs = store.runs!;

    // A row admitted into a run's range (a backfill at a position a run holds): that run is refused.
    store.admitNow(items(event({ session: 'a', seq: 600, id: 'backfill-600', epoch: 0 })));
    expect(replay(store, 'a', null)).toEqual(replay(table, 'a', null));
    expect(replay(store, 'a', null)).toHaveLength(641);
    expect(runs.counts.refused).toBe(2);
    // Retention deleting part of a run: the rest of it comes from the table.
    store.setRetention(200);
    expect(replay(store, 'b', null)).toEqual(replay(table, 'b', null));
    expect(runs.counts.refused).toBe(3);

    // A few bytes of one block overwritten (the checksum catches it).
    const fd = openSync(path, 'r+');
    writeSync(fd, Buffer.from('garbage'), 0, 7, Math.floor(statSync(path).size * 0.9));
    closeSync(fd);
    const before = runs.counts.refused;
    expect(replay(store, 'a', null)).toEqual(replay(table, 'a', null));
    expect(replay(store, 'b', null)).toEqual(replay(table, 'b', null));
    expect(runs.counts.refused).toBeGreaterThan(before);

    // The file cut short (a power cut before it reached the disk).
    truncateSync(path, Math.floor(statSync(path).size / 2));
    expect(replay(store, 'a', null)).toEqual(replay(table, 'a', null));
    expect(replay(store, 'b', { epoch: 0, seq: 300 })).toEqual(replay(table, 'b', { epoch: 0, seq: 300 }));

    // The file gone altogether.
    unlinkSync(path);
    expect(replay(store, 'a', null)).toEqual(replay(table, 'a', null));
    close();
    tmp.cleanup();
  });

  it('keeps its runs across a reopen, writes new ones to a new segment, and upkeep removes or compacts dead segments', () => {
    const tmp = tempDir();
    const file = tmp.file();
    const dir = `${file}-runs`;
    let s = open(file);
    fill(s.store, ['a'], 10 * RUN_ROWS);
    fill(s.store, ['b'], RUN_ROWS);
    s.close();
    expect(segments(dir)).toEqual(['1.runs']);

    s = open(file);
    fill(s.store, ['c'], RUN_ROWS);
    expect(segments(dir)).toEqual(['1.runs', '2.runs']);
    // The runs written before the reopen are read.
    expect(replay(s.store, 'b', null)).toEqual(replay(s.table, 'b', null));
    expect(s.store.runs!.counts.read).toBe(1);

    // Retention keeps every session's last run only: most of segment 1 is dead.
    s.store.setRetention(RUN_ROWS);
    const runs = s.store.runs!;
    runs.upkeep(); // stale runs go; segment 1's size is learned
    const live = s.db.prepare('SELECT count(*) FROM event_runs WHERE segment = 1').pluck().get() as number;
    expect(live).toBe(2); // a's last and b's (the fillers' last runs were written after the reopen)
    runs.upkeep(); // its live runs move to segment 2
    expect(runs.counts.compacted).toBe(live);
    runs.upkeep(); // nothing points into segment 1 any more
    expect(segments(dir)).toEqual(['2.runs']);
    expect(runs.counts.removedSegments).toBe(1);
    for (const session of ['a', 'b', 'c', ...FILLERS]) expect(replay(s.store, session, null)).toEqual(replay(s.table, session, null));
    expect(runs.counts.refused).toBe(0);

    // A session forgotten altogether takes its runs with it.
    s.db.prepare("DELETE FROM events WHERE session = 'c'").run();
    runs.upkeep();
    expect(s.db.prepare("SELECT count(*) FROM event_runs WHERE session = 'c'").pluck().get()).toBe(0);
    s.close();
    tmp.cleanup();
  });

  it('replays the same as the table under random admits, backfill, duplicates, seq-less rows, retention, damage and reopens', () => {
    type Op =
      | { op: 'admit'; session: number; count: number; kind: 'next' | 'backfill' | 'seqless' | 'dup' }
      | { op: 'retain'; max: number }
      | { op: 'damage'; at: number }
      | { op: 'reopen' }
      | { op: 'upkeep' };
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      { weight: 8, arbitrary: fc.record({ op: fc.constant('admit' as const), session: fc.integer({ min: 0, max: 3 }), count: fc.integer({ min: 1, max: 160 }), kind: fc.constantFrom('next', 'next', 'next', 'backfill', 'seqless', 'dup') as fc.Arbitrary<'next' | 'backfill' | 'seqless' | 'dup'> }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('retain' as const), max: fc.integer({ min: 20, max: 400 }) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('damage' as const), at: fc.nat() }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('reopen' as const) }) },
      { weight: 1, arbitrary: fc.record({ op: fc.constant('upkeep' as const) }) },
    );
    // Over all the cases: runs were read, and some were refused (so both paths ran).
    const total = { read: 0, refused: 0 };
    fc.assert(
      fc.property(fc.array(opArb, { minLength: 5, maxLength: 40 }), fc.array(fc.nat({ max: 2_000 }), { minLength: 3, maxLength: 3 }), (ops, froms) => {
        const tmp = tempDir();
        const file = tmp.file();
        let s = open(file);
        const next = [1, 1, 1, 1];
        const ids: string[] = [];
        try {
          for (const o of ops) {
            if (o.op === 'admit') {
              const session = `s${o.session}`;
              const batch = [];
              for (let i = 0; i < o.count; i++) {
                let e;
                if (o.kind === 'next') e = event({ session, seq: next[o.session]++, epoch: 0 });
                else if (o.kind === 'backfill') e = event({ session, seq: Math.max(0, next[o.session] - 1 - ((i * 7) % 50)), epoch: 0 });
                else if (o.kind === 'seqless') e = event({ session, seq: undefined, type: 'control.instruct' });
                else e = { ...event({ session, seq: next[o.session]++, epoch: 0 }), id: ids[(i * 13) % Math.max(1, ids.length)] ?? 'dup-0' };
                ids.push(e.id);
                batch.push(e, ...fillers());
              }
              for (let i = 0; i < batch.length; i += 32) s.store.admitNow(items(...batch.slice(i, i + 32)));
            } else if (o.op === 'retain') s.store.setRetention(o.max);
            else if (o.op === 'damage') {
              const dir = `${file}-runs`;
              const files = existsSync(dir) ? segments(dir) : [];
              if (files.length > 0) {
                const path = join(dir, files[o.at % files.length]);
                const size = statSync(path).size;
                if (size > 0) {
                  const fd = openSync(path, 'r+');
                  writeSync(fd, Buffer.from([0xff, 0x00, 0x7f]), 0, 3, o.at % size);
                  closeSync(fd);
                }
              }
            } else if (o.op === 'reopen') {
              s.close();
              s = open(file);
            } else s.store.runs!.upkeep();
          }
          for (const session of ['s0', 's1', 's2', 's3', ...FILLERS]) {
            expect(replay(s.store, session, null)).toEqual(replay(s.table, session, null));
            for (const seq of froms)
              expect(replay(s.store, session, { epoch: 0, seq })).toEqual(replay(s.table, session, { epoch: 0, seq }));
          }
          total.read += s.store.runs!.counts.read;
          total.refused += s.store.runs!.counts.refused;
        } finally {
          s.close();
          tmp.cleanup();
        }
      }),
      { numRuns: 40, seed: 20_261_205 },
    );
    expect(total.read).toBeGreaterThan(100);
    expect(total.refused).toBeGreaterThan(0);
  });

  it('writes no runs for a session whose rows are dense in the table (few sessions at once)', () => {
    const tmp = tempDir();
    const { store, table, close } = open(tmp.file());
    const rows: AepEvent[] = [];
    // Two sessions in turn: each one's 64 rows span 128 table rows, under 64 × DENSE_SPAN.
    for (let seq = 1; seq <= 1_000; seq++) rows.push(event({ session: 'x', seq }), event({ session: 'y', seq }));
    for (let i = 0; i < rows.length; i += 32) store.admitNow(items(...rows.slice(i, i + 32)));
    expect(DENSE_SPAN).toBe(4);
    expect(store.runs!.counts.written).toBe(0);
    expect(store.runs!.counts.dense).toBe(2);
    for (const session of ['x', 'y']) expect(replay(store, session, null)).toEqual(replay(table, session, null));
    // Spread out again (many sessions at once): runs again, after the window that was only counted.
    fill(store, ['x'], 3 * RUN_ROWS, 1_001);
    expect(store.runs!.counts.written).toBeGreaterThan(0);
    expect(replay(store, 'x', null)).toEqual(replay(table, 'x', null));
    close();
    tmp.cleanup();
  });

  it('keeps none for an in-memory database, or when turned off', () => {
    const db = openDb(':memory:');
    expect(new EventStore(db, { maxEventsPerSession: 10 }).runs).toBeNull();
    db.close();
    const tmp = tempDir();
    const file = tmp.file();
    const disk = openDb(file);
    expect(new EventStore(disk, { maxEventsPerSession: 10, runs: false }).runs).toBeNull();
    disk.close();
    expect(existsSync(`${file}-runs`)).toBe(false);
    writeFileSync(join(tmp.dir, 'x'), '');
    tmp.cleanup();
  });
});
