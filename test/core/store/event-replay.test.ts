/**
 * The store's paged replay over a real SQLite file: thousands of events of interleaved sessions,
 * admitted out of order, come back in pages of at most the page size, all of them, in session
 * order, each with the very bytes it was admitted with (not a re-serialisation).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EventStore } from '../../../main/core/store/event-store';
import { FIRST_PAGE_ROWS, MIN_PAGE_ROWS, PAGE_BUDGET_MS } from '../../../main/core/store/event-replay';
import { openDb } from '../../../main/core/store/open-db';
import { replaySql } from '../../../main/core/store/replay-filter';
import type { AdmitItem } from '../../../main/core/store/event-store';
import { event, tempDir } from './temp-db';

const tmp = tempDir();

/** Admitted text with spacing and escapes JSON.stringify would not produce, so a re-serialisation shows. */
const verbatim = (e: ReturnType<typeof event>): AdmitItem => ({
  event: e,
  json: JSON.stringify(e, null, 1).replace('"aep"', '"\\u0061ep"'),
});

describe('EventReplay pages', () => {
  const N = 4_000;
  const PAGE = 128;
  const db = openDb(tmp.file('replay.db'));
  const store = new EventStore(db, { maxEventsPerSession: N, replayPageSize: PAGE });
  const admitted = new Map<string, string>();
  const sessions = ['a', 'b', 'c'];

  it('returns every event of each session in (epoch, seq) order, in bounded pages, byte for byte', () => {
    const all: AdmitItem[] = [];
    for (let i = 0; i < N; i++) {
      const session = sessions[i % 3];
      const seq = Math.floor(i / 3) + 1;
      const item = verbatim(
        event({ session, seq, epoch: seq % 5 === 0 ? 1 : 0, type: i % 7 === 0 ? 'turn.started' : 'tool.started' }),
      );
      admitted.set(item.event.id, item.json);
      all.push(item);
    }
    // Arrival order scrambled (backfill), admitted in batches.
    all.sort((x, y) => ((x.event.seq! * 7919) % 1009) - ((y.event.seq! * 7919) % 1009));
    for (let i = 0; i < all.length; i += 500) store.admitNow(all.slice(i, i + 500));

    let total = 0;
    for (const session of store.heldSessions()) {
      const pages = [...store.replayPages(session, null)];
      expect(pages.every((p) => p.length <= PAGE)).toBe(true);
      const rows = pages.flat();
      total += rows.length;
      const keys = rows.map((r) => [r.epoch, r.seq]);
      const sorted = [...keys].sort((x, y) => x[0] - y[0] || x[1] - y[1]);
      expect(keys).toEqual(sorted);
      for (const row of rows) {
        expect(row.session).toBe(session);
        expect(row.json).toBe(admitted.get(row.event.id));
        expect(row.type).toBe(row.event.type);
      }
    }
    expect(total).toBe(N);
  });

  it('resumes after a position mid-page, and a filtered replay returns exactly the matching rows', () => {
    const full = [...store.replay('b', null)];
    const at = full[777];
    const rest = [...store.replay('b', { epoch: at.epoch, seq: at.seq })];
    expect(rest.map((r) => r.json)).toEqual(full.slice(778).map((r) => r.json));

    const sql = replaySql({ type: 'turn.started' });
    const pages = [...store.replayPages('b', null, sql)];
    const matched = pages.flat();
    expect(matched.map((r) => r.json)).toEqual(
      full.filter((r) => r.type === 'turn.started').map((r) => r.json),
    );
    expect(pages.every((p) => p.length <= PAGE)).toBe(true);
    db.close();
    tmp.cleanup();
  });
});

describe('EventReplay page keys', () => {
  it('continues a page that ends inside a run of events at one position (seq-less ones, anchored alike) with the next row, never a repeat or a gap', async () => {
    const dir = tempDir();
    const db = openDb(dir.file('keys.db'));
    const store = new EventStore(db, { maxEventsPerSession: 1_000, replayPageSize: 3 });
    const command = (id: string) => event({ id, type: 'control.instruct', source: 'urn:console' });
    const order: string[] = [];
    const admitOne = async (e: ReturnType<typeof event>): Promise<void> => {
      order.push(e.id);
      await store.admit([{ event: e, json: JSON.stringify(e) }]);
    };
    // Runs of 1 to 9 commands anchored at (0, 0), (0, 1), … (ties 1, 2, … and rising row numbers
    // within a run), a sequenced event between runs: page ends fall inside runs at every offset.
    for (let seq = 0; seq < 10; seq++) {
      if (seq > 0) await admitOne(event({ id: `e${seq}`, seq }));
      for (let k = 0; k <= seq % 9; k++) await admitOne(command(`c${seq}-${k}`));
    }
    const pages = [...store.replayPages('s1', null)];
    expect(pages.every((p) => p.length <= 3)).toBe(true);
    expect(pages.flat().map((r) => r.event.id)).toEqual(order);
    // Resuming at each sequenced position replays the rest, as the pages above did.
    for (let seq = 1; seq < 10; seq++) {
      const rest = [...store.replayPages('s1', { epoch: 0, seq })].flat().map((r) => r.event.id);
      expect(rest).toEqual(order.slice(order.indexOf(`e${seq}`) + 1));
    }
    // A filtered replay of the commands scans windows ending inside runs just the same.
    const filtered = [...store.replayPages('s1', null, replaySql({ type: 'control.instruct' }))].flat();
    expect(filtered.map((r) => r.event.id)).toEqual(order.filter((id) => id.startsWith('c')));
    db.close();
    dir.cleanup();
  });
});

describe('EventReplay page sizing', () => {
  const N = 3_000;
  const PAGE = 1_000;
  afterEach(() => vi.restoreAllMocks());

  const filled = (): { store: EventStore; close: () => void } => {
    const dir = tempDir();
    const db = openDb(dir.file('sizing.db'));
    const store = new EventStore(db, { maxEventsPerSession: N, replayPageSize: PAGE });
    const all: AdmitItem[] = [];
    for (let seq = 1; seq <= N; seq++) {
      const e = event({ session: 's', seq });
      all.push({ event: e, json: JSON.stringify(e) });
    }
    for (let i = 0; i < N; i += 500) store.admitNow(all.slice(i, i + 500));
    return { store, close: () => (db.close(), dir.cleanup()) };
  };

  it('reads pages of fewer rows once reads are slow, so a page stays near the time budget, and every row still comes once', () => {
    const { store, close } = filled();
    // Every clock reading is 20 ms after the last: each page "took" 20 ms whatever its size.
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (clock += 20));
    const sizes = [...store.replayPages('s', null)].map((page) => page.length);
    vi.restoreAllMocks();
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(N);
    // The first pages shrink as the rate is learned; from then on a page is the smallest allowed.
    expect(sizes[0]).toBeGreaterThan(sizes[2]);
    expect(Math.max(...sizes.slice(3, -1))).toBe(MIN_PAGE_ROWS);
    close();
  });

  it('scans filtered windows of fewer rows once reads are slow, as the unfiltered pages are', () => {
    const { store, close } = filled();
    // The filter matches every row, so a page holds its whole window; each window "took" 20 ms.
    let clock = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (clock += 20));
    const sizes = [...store.replayPages('s', null, replaySql({ type: 'tool.started' }))].map(
      (page) => page.length,
    );
    vi.restoreAllMocks();
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(N);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE);
    expect(Math.max(...sizes.slice(3, -1))).toBe(MIN_PAGE_ROWS);
    close();
  });

  it('starts every replay with a small page and doubles it up to the page size once reads are fast, never beyond it', () => {
    const { store, close } = filled();
    // Each page "took" 1 ms: far within the budget, so the page size is the bound.
    let clock = 0;
    let calls = 0;
    vi.spyOn(performance, 'now').mockImplementation(() => (clock += calls++ % 2 === 0 ? PAGE_BUDGET_MS : 1));
    for (let round = 0; round < 3; round++) {
      const sizes = [...store.replayPages('s', null)].map((page) => page.length);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(N);
      expect(Math.max(...sizes)).toBeLessThanOrEqual(PAGE);
      // Once the rate is learned (round 2), however fast the replays before it read, a replay's
      // first page is small (its rows may be cold), and the pages double from there.
      if (round === 2) {
        // (A page "takes" 1 ms whatever its size here, so the small first pages read as slow per
        // row and hold the growth back for a few pages; in a real read a page's fixed cost is
        // tens of microseconds.)
        expect(FIRST_PAGE_ROWS).toBe(8);
        expect(sizes.slice(0, 5)).toEqual([8, 16, 32, 64, 128]);
        expect(Math.max(...sizes)).toBe(PAGE);
      }
    }
    close();
  });
});
