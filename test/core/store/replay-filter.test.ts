/** Filtered replay: the SQL push-down agrees with the filter, pages are bounded work, and replay yields per page. */
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { parseFilter } from '../../../main/core/aep/filter';
import { Subscription, type DeliveryTransport } from '../../../main/core/relay/subscription';
import { EventStore } from '../../../main/core/store/event-store';
import { openDb } from '../../../main/core/store/open-db';
import { replaySql } from '../../../main/core/store/replay-filter';
import { event, items, tempDir } from './temp-db';

let t: ReturnType<typeof tempDir>;
let db: Database;
beforeEach(() => {
  t = tempDir();
  db = openDb(t.file());
});
afterEach(() => {
  db.close();
  t.cleanup();
});

const TYPES = [
  'tool.requested',
  'tool.completed',
  'run.started',
  'progress.status',
  'attention.requested',
];
const SEVS = [undefined, 'debug', 'info', 'notice', 'error'] as const;

/** A mixed history: types, severities, sources, agents, causes, epochs and seq-less rows. */
function history(n: number): AepEvent[] {
  return Array.from({ length: n }, (_, i) =>
    event({
      session: 'mix',
      type: TYPES[i % TYPES.length],
      severity: SEVS[i % SEVS.length],
      source: i % 3 === 0 ? 'urn:a' : 'urn:b',
      agent: i % 4 === 0 ? 'x' : 'y',
      cause: i % 7 === 0 ? `c${i % 2}` : undefined,
      epoch: i % 11 === 0 ? undefined : i < n / 2 ? 0 : 1,
      seq: i % 13 === 5 ? undefined : i + 1,
      subject: i % 2 === 0 ? 'even' : 'odd',
    }),
  );
}

const FILTERS: Record<string, unknown>[] = [
  {},
  { type: 'tool.requested' },
  { type: ['tool.*', 'run.started'] },
  { type: 'attention.*', severity: { gte: 'notice' } },
  { severity: 'info' },
  { severity: ['debug', 'error'] },
  { severity: { lte: 'info' } },
  { source: 'urn:a', agent: ['x'] },
  { cause: ['c0', 'c1'] },
  { epoch: 0 },
  { epoch: [1], type: 'progress.*' },
  { subject: 'even', type: 'tool.*' },
  { session: 'mix', type: 'run.started' },
  { session: 'other' },
];

describe('filtered replay', () => {
  it('returns exactly what the filter matches, in order, for every pushed-down key', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 10_000, replayPageSize: 17 });
    const events = history(600);
    await store.admit(items(...events));
    const all = [...store.replay('mix', null)];
    for (const spec of FILTERS) {
      const parsed = parseFilter(spec);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const filter = parsed.value;
      const sql = replaySql(spec);
      const got: string[] = [];
      for (const page of store.replayPages('mix', null, sql))
        for (const row of page) if (sql.exact || filter.matches(row.event)) got.push(row.event.id);
      const wanted = all.filter((row) => filter.matches(row.event)).map((row) => row.event.id);
      if (spec.session === 'other') expect(wanted).toEqual([]);
      else expect(got, JSON.stringify(spec)).toEqual(wanted);
    }
    expect(replaySql({ type: 'tool.*', severity: 'info' }).exact).toBe(true);
    expect(replaySql({ subject: 'x' }).exact).toBe(false);
  });

  it('reads a rare match in pages of bounded work, not one scan of the whole session', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 10_000, replayPageSize: 100 });
    const events = Array.from({ length: 4_000 }, (_, i) =>
      event({
        session: 'big',
        seq: i + 1,
        epoch: 0,
        type: i === 3_999 ? 'run.failed' : 'progress.status',
      }),
    );
    await store.admit(items(...events));
    const pages = [...store.replayPages('big', null, replaySql({ type: 'run.failed' }))];
    // Windows of at most 100 rows (the page size), sized from the read rate as the unfiltered
    // pages are (the first ones small): at least 40 full windows, then the one that finds the end.
    expect(pages.length).toBeGreaterThanOrEqual(41);
    expect(pages.length).toBeLessThan(4_000 / 8);
    expect(Math.max(...pages.map((p) => p.length))).toBe(1);
    expect(pages.flat().map((r) => r.type)).toEqual(['run.failed']);
  });

  it('yields to the event loop once per page, even when the filter matches nothing', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 10_000, replayPageSize: 100 });
    await store.admit(
      items(
        ...Array.from({ length: 2_000 }, (_, i) => event({ session: 'y', seq: i + 1, epoch: 0 })),
      ),
    );
    for (const spec of [{ type: 'run.failed' }, { subject: 'nothing' }, {}]) {
      const sent: string[] = [];
      const transport: DeliveryTransport = {
        bufferedBytes: () => 0,
        sendEvent: (r) => void sent.push(r.json),
        sendReplayExhausted: () => undefined,
        drained: () => Promise.resolve(),
        overflow: () => undefined,
        isClosed: () => false,
      };
      const parsed = parseFilter(spec);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const sub = new Subscription(
        { id: 's', filter: parsed.value, from: 'all' },
        transport,
        store,
      );
      let ticks = 0;
      let ticking = true;
      const tick = (): void => {
        ticks++;
        if (ticking) setImmediate(tick);
      };
      setImmediate(tick);
      await sub.start({ live: false });
      ticking = false;
      // Other work ran between the pages: at least once per page read.
      expect(sub.replayTurns, JSON.stringify(spec)).toBeGreaterThanOrEqual(5);
      expect(ticks, JSON.stringify(spec)).toBeGreaterThanOrEqual(5);
      expect(sent).toHaveLength(Object.keys(spec).length === 0 ? 2_000 : 0);
    }
  });
});
