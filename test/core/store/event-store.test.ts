import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EventStore } from '../../../main/core/store/event-store';
import { migrations } from '../../../main/core/store/migrations/index';
import { openDb } from '../../../main/core/store/open-db';
import { StoreError } from '../../../main/core/store/store-error';
import { event, items, storeAtOldSchema, tempDir } from './temp-db';

let tmp: ReturnType<typeof tempDir>;
let db: Database;
beforeEach(() => {
  tmp = tempDir();
  db = openDb(tmp.file());
});
afterEach(() => {
  if (db.open) db.close();
  tmp.cleanup();
});

const storedIds = (file: string): string[] => {
  const other = new BetterSqlite3(file, { readonly: true });
  try {
    return (other.prepare('SELECT id FROM events ORDER BY n').all() as { id: string }[]).map(
      (r) => r.id,
    );
  } finally {
    other.close();
  }
};

describe('EventStore.admit', () => {
  it('resolves only after COMMIT: a second connection sees the rows inside the resolution', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const a = event({ seq: 1 });
    const b = event({ seq: 2 });
    const seen = await store
      .admit(items(a, b))
      .then((flags) => ({ flags, ids: storedIds(tmp.file()) }));
    expect(seen.flags).toEqual([true, true]);
    expect(seen.ids).toEqual([a.id, b.id]);
  });

  it('shares one transaction among every admit of one event-loop turn, and starts a new one next turn', async () => {
    // Count the transactions (BEGINs, not savepoints nested in one) run by the transaction
    // functions the store builds from the connection.
    let transactions = 0;
    const counting = new Proxy(db, {
      get(target, prop) {
        if (prop === 'transaction') {
          return (fn: (...args: never[]) => unknown) => {
            const tx = target.transaction(fn);
            const count =
              (run: (...args: never[]) => unknown) =>
              (...args: never[]) => {
                if (!target.inTransaction) transactions += 1;
                return run(...args);
              };
            return Object.assign(count(tx), {
              deferred: count(tx.deferred),
              immediate: count(tx.immediate),
              exclusive: count(tx.exclusive),
            });
          };
        }
        const value: unknown = Reflect.get(target, prop, target);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    });
    const store = new EventStore(counting, { maxEventsPerSession: 100 });
    const results = await Promise.all([
      store.admit(items(event({ seq: 1 }))),
      store.admit(items(event({ seq: 2 }))),
      store.admit(items(event({ seq: 3 }))),
    ]);
    expect(results).toEqual([[true], [true], [true]]);
    expect(transactions).toBe(1);
    await store.admit(items(event({ seq: 4 })));
    expect(transactions).toBe(2);
  });

  it('reports duplicates of (source, id) as false, within one batch and across batches', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const a = event({ seq: 1 });
    const b = event({ seq: 2 });
    expect(await store.admit(items(a, b, a))).toEqual([true, true, false]);
    const [first, second] = await Promise.all([
      store.admit(items(b)),
      store.admit(items(event({ seq: 3 }), b)),
    ]);
    expect(first).toEqual([false]);
    expect(second).toEqual([true, false]);
    expect(store.counts()).toEqual({ events: 3, sessions: 1 });
  });

  it('keeps refusing duplicates across the 0110 upgrade of the dedupe index to (id, source)', async () => {
    db.close();
    const file = tmp.file('upgraded.db');
    const before = openDb(file, { migrations: migrations.filter((m) => m.version < 110) });
    const stored = event({ seq: 1 });
    storeAtOldSchema(before, [stored]);
    before.close();
    db = openDb(file);
    const indexes = (db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name IN ('events', 'sessions')").all() as { name: string }[]).map((r) => r.name);
    expect(indexes).toContain('events_id_source');
    expect(indexes).not.toContain('events_source_id');
    expect(indexes).not.toContain('sessions_state_seen');
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const sameIdOtherSource = { ...stored, source: 'urn:test:other' };
    expect(await store.admit(items(stored, sameIdOtherSource))).toEqual([false, true]);
    expect(storedIds(file)).toEqual([stored.id, stored.id]);
  });

  it('treats the same id from two sources as two events', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const a = event({ id: 'same', source: 'urn:a', seq: 1 });
    const b = event({ id: 'same', source: 'urn:b', seq: 2 });
    expect(await store.admit(items(a, b))).toEqual([true, true]);
  });

  it('rejects only the failing admit of a turn: the other admits of that turn still commit', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    db.exec(
      `CREATE TRIGGER fail BEFORE INSERT ON events WHEN NEW.id = 'boom' BEGIN SELECT RAISE(ABORT, 'simulated failure'); END`,
    );
    const good = store.admit(items(event({ id: 'good', seq: 1 })));
    const bad = store.admit(items(event({ id: 'boom', seq: 2 }), event({ id: 'with-boom', seq: 3 })));
    const other = store.admit(items(event({ id: 'other', seq: 4 })));
    const outcomes = await Promise.allSettled([good, bad, other]);
    expect(outcomes.map((o) => o.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    // The failing admit is all or nothing: its other event is not stored either.
    expect(storedIds(tmp.file()).sort()).toEqual(['good', 'other']);
    expect(store.counts()).toEqual({ events: 2, sessions: 1 });
    db.exec('DROP TRIGGER fail');
    expect(await store.admit(items(event({ id: 'boom', seq: 2 })))).toEqual([true]);
  });

  it('admitNow stores inside the caller transaction: a rollback takes the events with it', () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    expect(() =>
      db.transaction(() => {
        store.admitNow(items(event({ id: 'gone', seq: 1 })));
        throw new Error('decision failed');
      })(),
    ).toThrow('decision failed');
    expect(storedIds(tmp.file())).toEqual([]);
    db.transaction(() => expect(store.admitNow(items(event({ id: 'kept', seq: 1 })))).toEqual([true]))();
    expect(storedIds(tmp.file())).toEqual(['kept']);
    expect(store.counts()).toEqual({ events: 1, sessions: 1 });
  });

  it('rejects every pending admit when the database was closed before the commit', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const pending = store.admit(items(event({ seq: 1 })));
    db.close();
    await expect(pending).rejects.toThrow();
  });

  it('refuses a malformed item with invalid-input without affecting the other admits of the turn', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const good = store.admit(items(event({ seq: 1 })));
    const noSession = event({ seq: 2 });
    delete (noSession as { session?: string }).session;
    const bad = store.admit(items(noSession));
    await expect(bad).rejects.toMatchObject({ code: 'invalid-input' });
    await expect(bad).rejects.toBeInstanceOf(StoreError);
    await expect(store.admit([{ event: event({ seq: -1 }), json: '{}' }])).rejects.toThrow(/seq/);
    await expect(store.admit([{ event: event({ seq: 3 }), json: '' }])).rejects.toThrow(/json/);
    expect(await good).toEqual([true]);
  });

  it('never stores agent-scoped events but reports them admitted', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const heartbeat = event({ type: 'agent.heartbeat' });
    delete (heartbeat as { session?: string }).session;
    expect(await store.admit(items(heartbeat, event({ seq: 1 })))).toEqual([true, true]);
    expect(store.counts()).toEqual({ events: 1, sessions: 1 });
  });

  it('commits everything pending at once on flush', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const a = event({ seq: 1 });
    const pending = store.admit(items(a));
    store.flush();
    expect(storedIds(tmp.file())).toEqual([a.id]);
    expect(await pending).toEqual([true]);
  });
});

describe('EventStore.replay', () => {
  const collect = (
    store: EventStore,
    session: string,
    after: { epoch: number; seq: number } | null,
  ) => [...store.replay(session, after)].map((r) => `${r.event.id}@${r.epoch}:${r.seq}`);

  it('yields a session in (epoch, seq) order across epochs, whatever the arrival order, with the verbatim JSON', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100, replayPageSize: 2 });
    const e = [
      event({ id: 'e1s5', epoch: 1, seq: 5 }),
      event({ id: 'e0s2', seq: 2 }),
      event({ id: 'e2s1', epoch: 2, seq: 1 }),
      event({ id: 'e0s1', epoch: 0, seq: 1 }),
      event({ id: 'e1s1', epoch: 1, seq: 1 }),
      event({ id: 'other', session: 's2', seq: 1 }),
    ];
    const texts = e.map((x) => ` ${JSON.stringify(x)} `); // odd whitespace proves the text is not re-serialised
    await store.admit(e.map((x, i) => ({ event: x, json: texts[i] })));
    expect(collect(store, 's1', null)).toEqual([
      'e0s1@0:1',
      'e0s2@0:2',
      'e1s1@1:1',
      'e1s5@1:5',
      'e2s1@2:1',
    ]);
    expect([...store.replay('s1', null)][0].json).toBe(texts[3]);
    expect(collect(store, 's1', { epoch: 1, seq: 1 })).toEqual(['e1s5@1:5', 'e2s1@2:1']);
    expect(collect(store, 's1', { epoch: 0, seq: 99 })).toEqual([
      'e1s1@1:1',
      'e1s5@1:5',
      'e2s1@2:1',
    ]);
    expect(collect(store, 's1', { epoch: 2, seq: 1 })).toEqual([]);
    expect(collect(store, 'unknown', null)).toEqual([]);
  });

  it('places seq-less events after the position the session held when they arrived, ahead of later events', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100, replayPageSize: 2 });
    const command = (id: string) => event({ id, type: 'control.instruct', source: 'urn:console' });
    await store.admit(items(command('c0'))); // before anything: anchored at (0, 0)
    await store.admit(items(event({ id: 'a', seq: 1 }), event({ id: 'b', seq: 2 })));
    await store.admit(items(command('c1'), command('c2')));
    await store.admit(items(event({ id: 'c', seq: 3 }), event({ id: 'late', seq: 0 })));
    await store.admit(items(event({ id: 'd', epoch: 1, seq: 1 }), command('c3')));
    expect(collect(store, 's1', null)).toEqual([
      'late@0:0',
      'c0@0:0',
      'a@0:1',
      'b@0:2',
      'c1@0:2',
      'c2@0:2',
      'c@0:3',
      'd@1:1',
      'c3@1:1',
    ]);
    const replayed = [...store.replay('s1', null)];
    expect(replayed.filter((r) => !r.sequenced).map((r) => r.event.id)).toEqual([
      'c0',
      'c1',
      'c2',
      'c3',
    ]);
  });

  it('resuming at a position redelivers the seq-less events anchored there but not the sequenced event itself', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    await store.admit(items(event({ id: 'a', seq: 1 })));
    await store.admit(items(event({ id: 'cmd', type: 'control.instruct', source: 'urn:console' })));
    await store.admit(items(event({ id: 'b', seq: 2 })));
    expect(collect(store, 's1', { epoch: 0, seq: 1 })).toEqual(['cmd@0:1', 'b@0:2']);
    expect(collect(store, 's1', { epoch: 0, seq: 2 })).toEqual([]);
  });

  it('pages through rows sharing one position without skipping or repeating any', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100, replayPageSize: 2 });
    // Two emitters using the same session name collide on positions; every row must still come back once.
    const evs = ['x', 'y', 'z', 'w', 'v'].map((id, i) => event({ id, source: `urn:${i}`, seq: 7 }));
    await store.admit(items(...evs, event({ id: 'after', seq: 8 })));
    expect(collect(store, 's1', null)).toEqual([
      'x@0:7',
      'y@0:7',
      'z@0:7',
      'w@0:7',
      'v@0:7',
      'after@0:8',
    ]);
    expect(collect(store, 's1', { epoch: 0, seq: 7 })).toEqual(['after@0:8']);
  });

  it('reads lazily: events committed while a replay is paused after a page are still delivered once', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 100, replayPageSize: 2 });
    await store.admit(
      items(event({ id: 'a', seq: 1 }), event({ id: 'b', seq: 2 }), event({ id: 'c', seq: 3 })),
    );
    const it = store.replay('s1', null);
    expect(it.next().value?.event.id).toBe('a');
    await store.admit(items(event({ id: 'd', seq: 4 })));
    expect([...it].map((r) => r.event.id)).toEqual(['b', 'c', 'd']);
  });
});

describe('EventStore retention', () => {
  it('keeps at most N events per session, trimming the oldest positions, and earliest follows', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 3 });
    expect(store.earliest('s1')).toBeNull();
    await store.admit(items(...[1, 2, 3, 4, 5].map((seq) => event({ id: `s1-${seq}`, seq }))));
    await store.admit(items(event({ id: 's2-1', session: 's2', seq: 1 })));
    expect([...store.replay('s1', null)].map((r) => r.seq)).toEqual([3, 4, 5]);
    expect(store.earliest('s1')).toEqual({ epoch: 0, seq: 3 });
    expect(store.trimmedThrough('s1')).toEqual({ epoch: 0, seq: 2 });
    expect(store.trimmedThrough('s2')).toBeNull();
    expect(store.counts()).toEqual({ events: 4, sessions: 2 });
    await store.admit(items(event({ id: 's1-e1', epoch: 1, seq: 1 })));
    expect(store.earliest('s1')).toEqual({ epoch: 0, seq: 4 });
    expect([...store.replay('s1', null)].map((r) => `${r.epoch}:${r.seq}`)).toEqual([
      '0:4',
      '0:5',
      '1:1',
    ]);
  });

  it('trims a late backfill below the retained window at once without moving trimmedThrough back', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 2 });
    await store.admit(items(...[5, 6, 7].map((seq) => event({ seq }))));
    expect(store.trimmedThrough('s1')).toEqual({ epoch: 0, seq: 5 });
    expect(await store.admit(items(event({ id: 'backfill', seq: 1 })))).toEqual([true]);
    expect([...store.replay('s1', null)].map((r) => r.seq)).toEqual([6, 7]);
    expect(store.trimmedThrough('s1')).toEqual({ epoch: 0, seq: 5 });
    expect(store.counts()).toEqual({ events: 2, sessions: 1 });
  });

  it('counts seq-less events toward retention and trims them in session order', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 2 });
    await store.admit(items(event({ id: 'a', seq: 1 })));
    await store.admit(items(event({ id: 'cmd', type: 'control.instruct', source: 'urn:console' })));
    await store.admit(items(event({ id: 'b', seq: 2 })));
    expect([...store.replay('s1', null)].map((r) => r.event.id)).toEqual(['cmd', 'b']);
    expect(store.earliest('s1')).toEqual({ epoch: 0, seq: 1 });
  });

  it('does not count duplicates toward retention', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 2 });
    const a = event({ id: 'a', seq: 1 });
    await store.admit(items(a, event({ id: 'b', seq: 2 })));
    await store.admit(items(a, a));
    expect([...store.replay('s1', null)].map((r) => r.event.id)).toEqual(['a', 'b']);
  });

  it('setRetention trims every session above the new limit at once', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 10 });
    await store.admit(
      items(
        ...[1, 2, 3, 4].map((seq) => event({ seq })),
        ...[1, 2].map((seq) => event({ session: 's2', seq })),
      ),
    );
    store.setRetention(2);
    expect(store.maxEventsPerSession).toBe(2);
    expect(store.earliest('s1')).toEqual({ epoch: 0, seq: 3 });
    expect(store.earliest('s2')).toEqual({ epoch: 0, seq: 1 });
    expect(store.counts()).toEqual({ events: 4, sessions: 2 });
    expect(() => store.setRetention(0)).toThrow(/positive integer/);
    expect(() => new EventStore(db, { maxEventsPerSession: 1.5 })).toThrow(StoreError);
  });

  it('lists held sessions for replay-all and survives a reopen of the file', async () => {
    const store = new EventStore(db, { maxEventsPerSession: 10 });
    await store.admit(items(event({ session: 'b', seq: 1 }), event({ session: 'a', seq: 1 })));
    expect(store.heldSessions()).toEqual(['a', 'b']);
    db.close();
    db = openDb(tmp.file());
    const reopened = new EventStore(db, { maxEventsPerSession: 10 });
    expect(reopened.heldSessions()).toEqual(['a', 'b']);
    expect(reopened.counts()).toEqual({ events: 2, sessions: 2 });
  });
});
