import { spawnSync } from 'node:child_process';
import {
  closeSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import type { Database } from 'better-sqlite3';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  deferredCommitOf,
  inCallerTransaction,
  readJournal,
} from '../../../main/core/store/deferred-commit';
import { EventStore } from '../../../main/core/store/event-store';
import { fileMapRefusal } from '../../../main/core/store/file-map';
import { FRAME_HEAD, JournalEncoder, decodeJournal } from '../../../main/core/store/journal-codec';
import { commitJournalPath, openDb } from '../../../main/core/store/open-db';
import { SearchIndexer } from '../../../main/core/store/search-indexer';
import { SessionsRepo, type SessionTouch } from '../../../main/core/store/sessions-repo';
import { event, items, tempDir } from './temp-db';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const killChild = fileURLToPath(new URL('./fixtures/deferred-kill.ts', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
let db: Database | undefined;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  if (db?.open) db.close();
  db = undefined;
  tmp.cleanup();
});

/** A deferred-commit connection on `file` and its store, whose insert of an event with id 'boom' fails. */
const storeRefusingBoom = (file: string): { opened: Database; store: EventStore } => {
  const opened = openDb(file, { deferCommits: { windowMs: 600_000 } });
  opened.exec(
    `CREATE TRIGGER boom BEFORE INSERT ON events WHEN NEW.id = 'boom' BEGIN SELECT RAISE(ABORT, 'boom refused'); END`,
  );
  return { opened, store: new EventStore(opened, { maxEventsPerSession: 100 }) };
};

/** What another connection sees (the committed state of the file). */
const committedIds = (file: string): string[] => {
  const other = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return (other.prepare('SELECT id FROM events ORDER BY n').all() as { id: string }[]).map(
      (r) => r.id,
    );
  } finally {
    other.close();
  }
};
const held = (d: Database, session = 's1'): number =>
  (
    d.prepare('SELECT held FROM event_sessions WHERE session = ?').get(session) as
      { held: number } | undefined
  )?.held ?? 0;
/** The held count another connection sees (the committed state of the file). */
const committedHeld = (file: string, session: string): number => {
  const other = new BetterSqlite3(file, { readonly: true, fileMustExist: true });
  try {
    return held(other, session);
  } finally {
    other.close();
  }
};
const touchOf = (session: string, hook: string, nowMs: number): SessionTouch => ({
  source: 'urn:test:rows',
  session,
  agent: 'a',
  vendor: 'claude-code',
  cwd: '/p',
  hook,
  instructOptIn: false,
  permissionsOptIn: false,
  nowMs,
});
const ftsRows = (d: Database): number =>
  d.prepare('SELECT count(*) FROM events_fts').pluck().get() as number;
/** Runs the kill child (fixtures/deferred-kill.ts) over `file` with these ids and steps. */
const killedChild = (file: string, ...steps: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', killChild, file, ...steps], {
    cwd: root,
    encoding: 'utf8',
  });
const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
/** Where the journal's valid records end (where the next one would go). */
const journalEnd = (path: string): number => {
  const bytes = readFileSync(path);
  let at = 0;
  for (let n = readJournal(path).length; n > 0; n--) at += FRAME_HEAD + bytes.readUInt32LE(at);
  return at;
};
/** Where the memory map can be had here (the optional module built, plain Node, Linux or macOS). */
const canMap = fileMapRefusal() === undefined;

// Each case runs with the journal's start mapped (file-map.ts) and with every record written;
// the kill children inherit the choice through the environment.
describe.each([
  ['mapped', true],
  ['written', false],
])('deferred commits (%s journal)', (_name, map) => {
  const saved = process.env.AEP_FILE_MAP;
  beforeEach(() => {
    if (map) delete process.env.AEP_FILE_MAP;
    else process.env.AEP_FILE_MAP = '0';
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.AEP_FILE_MAP;
    else process.env.AEP_FILE_MAP = saved;
  });

  it('keeps every acknowledged turn through a SIGKILL before any COMMIT: the journal writes them back once, in order', () => {
    const file = tmp.file();
    const child = killedChild(file, 'e1', 'e2', 'e3');
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout.trim().split('\n')).toEqual([
      'acked e1 true',
      'acked e2 true',
      'acked e3 true',
    ]);
    // Nothing was committed: only the journal holds them.
    expect(committedIds(file)).toEqual([]);
    expect(readJournal(commitJournalPath(file)).map((r) => r.seq)).toEqual([1, 2, 3]);

    // Any opener writes them back (a plain one leaves the journal to its writer).
    db = openDb(file);
    expect(committedIds(file)).toEqual(['e1', 'e2', 'e3']);
    expect(held(db)).toBe(3);
    expect(statSync(commitJournalPath(file)).size).toBeGreaterThan(0);
    db.close();
    db = openDb(file, { deferCommits: {} });
    expect(committedIds(file)).toEqual(['e1', 'e2', 'e3']);
    expect(held(db)).toBe(3);
    expect(
      (db.prepare('SELECT json FROM events WHERE id = ?').get('e2') as { json: string }).json,
    ).toContain('naïve ✓ e2');
    // The writer emptied the journal (a map's range reads as zeros: no record).
    expect(readJournal(commitJournalPath(file))).toEqual([]);
    expect(deferredCommitOf(db)!.mapped).toBe(map && canMap);
    expect(statSync(commitJournalPath(file)).size).toBe(map && canMap ? 2 * 1024 * 1024 : 0);
    db.close();
    // Opened again: nothing is written twice.
    db = openDb(file, { deferCommits: {} });
    expect(held(db)).toBe(3);
    expect(committedIds(file)).toEqual(['e1', 'e2', 'e3']);
  });

  it('writes a record that does not fit in the map, and reads it back after the mapped ones', async () => {
    const file = tmp.file();
    // A 4 KiB generation: the map is 8 KiB, and a 10 KB event's record goes past it.
    db = openDb(file, { deferCommits: { windowMs: 600_000, maxJournalBytes: 4096 } });
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    await store.admit(items(event({ seq: 1, data: { text: 'a'.repeat(100) } })));
    await store.admit(items(event({ seq: 2, data: { text: 'b'.repeat(10_000) } })));
    const journal = commitJournalPath(file);
    const records = readJournal(journal);
    expect(records.map((r) => r.seq)).toEqual([1, 2]);
    expect(JSON.stringify(records[1].writes)).toContain('b'.repeat(10_000));
    expect(journalEnd(journal)).toBeGreaterThan(8192);
    expect(statSync(journal).size).toBe(journalEnd(journal));
    // That turn passed the generation's size: committed, and the next generation starts over at 0.
    expect(deferredCommitOf(db)!.stats().commits).toBe(1);
    await store.admit(items(event({ seq: 3 })));
    expect(readJournal(journal).map((r) => r.seq)).toEqual([3]);
  });

  it('ignores a torn last record and everything after it, and replays no record the database already holds', () => {
    const file = tmp.file();
    const child = killedChild(file, 'a1', 'a2', 'a3');
    expect(child.signal).toBe('SIGKILL');
    const journal = commitJournalPath(file);
    // Damage the last record's end, as a power loss during its append would.
    const fd = openSync(journal, 'r+');
    writeSync(fd, Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9]), 0, 9, journalEnd(journal) - 3);
    closeSync(fd);
    expect(readJournal(journal).map((r) => r.seq)).toEqual([1, 2]);
    db = openDb(file, { deferCommits: {} });
    expect(committedIds(file)).toEqual(['a1', 'a2']);
    db.close();
    // A journal whose records the database already holds (a crash between COMMIT and emptying it).
    const child2 = killedChild(tmp.file('b.db'), 'b1');
    expect(child2.signal).toBe('SIGKILL');
    const saved = readFileSync(commitJournalPath(tmp.file('b.db')));
    db = openDb(tmp.file('b.db'), { deferCommits: {} });
    db.close();
    writeFileSync(commitJournalPath(tmp.file('b.db')), saved);
    db = openDb(tmp.file('b.db'), { deferCommits: {} });
    expect(held(db)).toBe(1);
    expect(committedIds(tmp.file('b.db'))).toEqual(['b1']);
  });

  it('acknowledges a turn before its COMMIT, and commits it after the window, on flush, and before any other write', async () => {
    const file = tmp.file();
    db = openDb(file, { deferCommits: { windowMs: 600_000 } });
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const a = event({ seq: 1 });
    expect(await store.admit(items(a))).toEqual([true]);
    // This connection sees its own turn; another one sees it after the COMMIT.
    expect(held(db)).toBe(1);
    expect(committedIds(file)).toEqual([]);
    expect(deferredCommitOf(db)!.isOpen).toBe(true);
    expect(inCallerTransaction(db)).toBe(false);
    store.flush();
    expect(committedIds(file)).toEqual([a.id]);

    // Another write on the connection commits the open transaction first.
    const b = event({ seq: 2 });
    await store.admit(items(b));
    expect(committedIds(file)).toEqual([a.id]);
    db.prepare("INSERT INTO settings (key, value) VALUES ('x', '1')").run();
    expect(committedIds(file)).toEqual([a.id, b.id]);
    expect(deferredCommitOf(db)!.stats()).toMatchObject({ turns: 2, commits: 2, forced: 1 });

    // A caller's transaction is one again, and admitNow inside it commits with it.
    const c = event({ seq: 3 });
    await store.admit(items(c));
    db.transaction(() => {
      expect(inCallerTransaction(db!)).toBe(true);
      store.admitNow(items(event({ seq: 4, id: 'inside' })));
    })();
    expect(committedIds(file)).toEqual([a.id, b.id, c.id, 'inside']);
  });

  it('lets another opener beside a live writer open at once, without writing back the turns the writer holds', async () => {
    const file = tmp.file();
    db = openDb(file, { deferCommits: { windowMs: 600_000 } });
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const a = event({ seq: 1 });
    await store.admit(items(a));
    // The writer holds the write lock: the opener does not wait it out (it would fail with BUSY).
    const other = openDb(file);
    try {
      expect(held(other)).toBe(0);
      store.flush();
      expect(held(other)).toBe(1);
    } finally {
      other.close();
    }
    const again = openDb(file);
    expect(held(again)).toBe(1);
    again.close();
  });

  it('commits after the window by itself', async () => {
    const file = tmp.file();
    db = openDb(file, { deferCommits: { windowMs: 5 } });
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    const a = event({ seq: 1 });
    await store.admit(items(a));
    for (let i = 0; i < 200 && committedIds(file).length === 0; i++)
      await new Promise((r) => setTimeout(r, 5));
    expect(committedIds(file)).toEqual([a.id]);
  });

  it('starts each generation of the journal over its start, and a crash replays only the current one', () => {
    const file = tmp.file();
    // Three turns committed (flush), then one more acknowledged, then SIGKILL.
    const child = killedChild(file, 'g1', 'g2', 'g3', '|', 'g4');
    expect(child.signal).toBe('SIGKILL');
    expect(committedIds(file)).toEqual(['g1', 'g2', 'g3']);
    // The file still holds the first generation's later records behind the new first one.
    const journal = commitJournalPath(file);
    expect(readJournal(journal).map((r) => r.seq)).toEqual([4]);
    db = openDb(file, { deferCommits: {} });
    expect(committedIds(file)).toEqual(['g1', 'g2', 'g3', 'g4']);
    expect(held(db)).toBe(4);
  });

  it('keeps the acknowledged turns when a later turn fails, and fails only the admit that broke it', async () => {
    const file = tmp.file();
    const made = storeRefusingBoom(file);
    db = made.opened;
    const { store } = made;
    const a = event({ seq: 1 });
    await store.admit(items(a));
    const b = event({ seq: 2 });
    const [okB, bad] = await Promise.allSettled([
      store.admit(items(b)),
      store.admit(items(event({ seq: 3, id: 'boom' }))),
    ]);
    expect(okB).toEqual({ status: 'fulfilled', value: [true] });
    expect(bad.status).toBe('rejected');
    expect(String((bad as PromiseRejectedResult).reason)).toContain('boom refused');
    store.flush();
    expect(committedIds(file)).toEqual([a.id, b.id]);
    expect(held(db)).toBe(2);
    // And the connection goes on deferring.
    const c = event({ seq: 4 });
    await store.admit(items(c));
    await turn();
    expect(deferredCommitOf(db)!.isOpen).toBe(true);
    db.close();
    expect(committedIds(file)).toEqual([a.id, b.id, c.id]);
  });

  it('writes several acknowledged turns again after a later turn fails, their pending rows with them', async () => {
    const file = tmp.file();
    const made = storeRefusingBoom(file);
    db = made.opened;
    const { store } = made;
    const first = [event({ session: 'x', seq: 1, id: 'x1' }), event({ session: 'y', seq: 1, id: 'y1' })];
    await store.admit(items(...first));
    await store.admit(items(event({ session: 'x', seq: 2, id: 'x2', data: { text: 'ünïcode ✓ and "quotes"' } })));
    await store.admit(items(event({ session: 'y', seq: 2, id: 'y2' })));
    const bad = store.admit(items(event({ session: 'x', seq: 3, id: 'boom' })));
    await expect(bad).rejects.toThrow('boom refused');
    store.flush();
    expect(committedIds(file).sort()).toEqual(['x1', 'x2', 'y1', 'y2']);
    const counts = db.prepare('SELECT session, held FROM event_sessions ORDER BY session').all();
    expect(counts).toEqual([
      { session: 'x', held: 2 },
      { session: 'y', held: 2 },
    ]);
    const text = db.prepare("SELECT json FROM events WHERE id = 'x2'").pluck().get() as string;
    expect(JSON.parse(text).data.text).toBe('ünïcode ✓ and "quotes"');
    db.close();
  });

  it('lets the search index join the open transaction unjournaled; after a crash it indexes the written-back rows again', async () => {
    const file = tmp.file();
    db = openDb(file, { deferCommits: { windowMs: 600_000 } });
    const store = new EventStore(db, { maxEventsPerSession: 100 });
    await store.admit(items(event({ seq: 1, data: { text: 'zebra crossing' } })));
    const indexer = new SearchIndexer(db, { everyMs: 0 });
    expect(indexer.step()).toBe(1);
    // Joined, not forced: the turn is still uncommitted, and this connection sees the index row.
    expect(deferredCommitOf(db)!.stats().forced).toBe(0);
    expect(committedIds(file)).toEqual([]);
    expect(ftsRows(db)).toBe(1);
    indexer.close();
    db.close();

    const child = killedChild(tmp.file('k.db'), 'k1', 'index', 'k2');
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).toContain('indexed 1');
    db = openDb(tmp.file('k.db'), { deferCommits: {} });
    expect(committedIds(tmp.file('k.db'))).toEqual(['k1', 'k2']);
    expect(ftsRows(db)).toBe(0);
    const again = new SearchIndexer(db, { everyMs: 0 });
    again.catchUp();
    again.close();
    expect(ftsRows(db)).toBe(2);
  });

  it('never writes a journal into a new database that took the place of its own', () => {
    const file = tmp.file();
    const child = killedChild(file, 'old1');
    expect(child.signal).toBe('SIGKILL');
    expect(readJournal(commitJournalPath(file))).toHaveLength(1);
    for (const f of [file, `${file}-wal`, `${file}-shm`]) rmSync(f, { force: true });
    db = openDb(file, { deferCommits: {} });
    expect(committedIds(file)).toEqual([]);
    expect(readJournal(commitJournalPath(file))).toEqual([]);
  });

  it('writes a row that many turns touch once before the COMMIT, journals every turn of it, and shows it to a read at once', async () => {
    const file = tmp.file();
    db = openDb(file, { deferCommits: { windowMs: 600_000 } });
    const store = new EventStore(db, { maxEventsPerSession: 1_000 });
    const sessions = new SessionsRepo(db);
    const deferred = deferredCommitOf(db)!;
    // The sessions' first hooks create their rows (written at once, outside any turn).
    for (const s of ['s1', 's2']) sessions.touch(touchOf(s, 'SessionStart', 1_000));
    for (let i = 1; i <= 20; i++) {
      const s = i % 2 === 1 ? 's1' : 's2';
      sessions.touch(touchOf(s, `H${i}`, 1_000 + i));
      await store.admit(items(event({ session: s, seq: i, id: `c${i}` })));
    }
    // Twenty turns, each journaling its session row and its count; nothing of them run yet.
    expect(deferred.stats()).toMatchObject({ turns: 20, later: 40, applied: 0 });
    expect(committedHeld(file, 's1')).toBe(0);
    // A read on the connection runs them first: one statement per row, not one per turn.
    expect(held(db, 's1')).toBe(10);
    expect(held(db, 's2')).toBe(10);
    expect(deferred.stats().applied).toBe(4);
    expect(sessions.get('urn:test:rows', 's1')).toMatchObject({
      lastHook: 'H19',
      lastSeenMs: 1_019,
    });
    expect(sessions.get('urn:test:rows', 's2')).toMatchObject({
      lastHook: 'H20',
      lastSeenMs: 1_020,
    });
    // More turns after the read, then the COMMIT runs what they left pending.
    for (let i = 21; i <= 24; i++) {
      sessions.touch(touchOf('s1', `H${i}`, 1_000 + i));
      await store.admit(items(event({ session: 's1', seq: i, id: `c${i}` })));
    }
    expect(deferred.stats()).toMatchObject({ later: 48, applied: 4 });
    store.flush();
    expect(deferred.stats().applied).toBe(6);
    expect(committedHeld(file, 's1')).toBe(14);
    expect(committedHeld(file, 's2')).toBe(10);
    const other = new BetterSqlite3(file, { readonly: true });
    try {
      expect(
        other.prepare("SELECT last_hook, last_seen_ms FROM sessions WHERE session = 's1'").get(),
      ).toEqual({ last_hook: 'H24', last_seen_ms: 1_024 });
    } finally {
      other.close();
    }
  });

  it('keeps counting and trimming right when a turn trims a session whose count is still pending', async () => {
    const file = tmp.file();
    db = openDb(file, { deferCommits: { windowMs: 600_000 } });
    const store = new EventStore(db, { maxEventsPerSession: 3 });
    // A new session past retention in its first turn, then one trimmed turn after another.
    await store.admit(
      items(...[1, 2, 3, 4, 5].map((seq) => event({ session: 't1', seq, id: `t${seq}` }))),
    );
    expect(held(db, 't1')).toBe(3);
    for (let seq = 6; seq <= 9; seq++)
      await store.admit(items(event({ session: 't1', seq, id: `t${seq}` })));
    await store.admit(items(event({ session: 't2', seq: 1, id: 'u1' })));
    await store.admit(items(event({ session: 't2', seq: 2, id: 'u2' })));
    expect(held(db, 't1')).toBe(3);
    expect(held(db, 't2')).toBe(2);
    store.flush();
    expect(committedIds(file)).toEqual(['t7', 't8', 't9', 'u1', 'u2']);
    expect(committedHeld(file, 't1')).toBe(3);
    expect(committedHeld(file, 't2')).toBe(2);
    // The same turns written back from the journal after a crash give the same counts.
    const child = killedChild(tmp.file('k.db'), 'rows', 'r1', 'r2', 'r3', 'at:s2', 'r4', 'r5');
    expect(child.signal).toBe('SIGKILL');
    db.close();
    db = openDb(tmp.file('k.db'), { deferCommits: {} });
    expect(held(db, 's1')).toBe(3);
    expect(held(db, 's2')).toBe(2);
    const rows = db
      .prepare('SELECT session, last_hook, last_seen_ms FROM sessions ORDER BY session')
      .all();
    expect(rows).toEqual([
      { session: 's1', last_hook: 'r3', last_seen_ms: 1_003 },
      { session: 's2', last_hook: 'r5', last_seen_ms: 1_005 },
    ]);
  });

  it('is off unless asked for, and for in-memory databases', () => {
    db = openDb(tmp.file());
    expect(deferredCommitOf(db)).toBeUndefined();
    db.close();
    db = openDb(':memory:', { deferCommits: {} });
    expect(deferredCommitOf(db)).toBeUndefined();
  });
});

describe('the journal record format', () => {
  const value = fc.oneof(
    fc.string({ unit: 'grapheme' }),
    fc.string(),
    fc.double({ noNaN: false }),
    fc.integer(),
    fc.constant(null),
    fc.constant(undefined),
    fc.bigInt(),
    fc.uint8Array({ maxLength: 40 }).map((a) => Buffer.from(a)),
  );
  const args = fc.array(
    fc.oneof(
      value,
      fc.array(value, { maxLength: 5 }),
      fc.dictionary(fc.stringMatching(/^[a-z_]\w{0,8}$/), value, { maxKeys: 5 }),
    ),
    { maxLength: 16 },
  );
  const write = fc.tuple(
    fc.integer({ min: 1, max: 65_535 }),
    fc.constantFrom(0 as const, 1 as const),
    args,
  );

  it('decodes what it encodes, frame after frame', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            seq: fc.integer({ min: 1, max: 2 ** 40 }),
            defs: fc.array(fc.tuple(fc.integer({ min: 1, max: 65_535 }), fc.string()), {
              maxLength: 3,
            }),
            writes: fc.array(write, { maxLength: 6 }),
          }),
          { minLength: 1, maxLength: 4 },
        ),
        (records) => {
          const encoder = new JournalEncoder();
          const bytes = Buffer.concat(
            records.map((r) => Buffer.from(encoder.encode(r.seq, r.defs, r.writes))),
          );
          const decoded = decodeJournal(bytes);
          expect(decoded.map((r) => ({ seq: r.seq, defs: [...r.defs], writes: r.writes }))).toEqual(
            records.map((r) => ({ seq: r.seq, defs: [...new Map(r.defs)], writes: r.writes })),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('encodes a small record correctly after a large one (the grown buffer is let go)', () => {
    const encoder = new JournalEncoder();
    const big = 'x'.repeat(3 * 1024 * 1024);
    const first = Buffer.from(
      encoder.encode(1, [[1, 'INSERT INTO t VALUES (?)']], [[1, 0, [big]]]),
    );
    const second = Buffer.from(encoder.encode(2, [], [[1, 0, ['small', 2]]]));
    const [a, b] = decodeJournal(Buffer.concat([first, second]));
    expect(a.writes[0][2][0]).toBe(big);
    expect(b.writes).toEqual([[1, 0, ['small', 2]]]);
  });

  it('stops at the first damaged frame', () => {
    const encoder = new JournalEncoder();
    const one = Buffer.from(encoder.encode(1, [[1, 'INSERT INTO t VALUES (?)']], [[1, 0, ['x']]]));
    const two = Buffer.from(encoder.encode(2, [], [[1, 0, ['y']]]));
    const damaged = Buffer.from(two);
    damaged[damaged.length - 1] ^= 0xff;
    expect(decodeJournal(Buffer.concat([one, damaged, one])).map((r) => r.seq)).toEqual([1]);
    expect(decodeJournal(Buffer.concat([one, two.subarray(0, 5)])).map((r) => r.seq)).toEqual([1]);
  });

  it('refuses an argument SQLite could not bind, rather than journal it wrongly', () => {
    expect(() => new JournalEncoder().encode(1, [], [[1, 0, [{ nested: { deeper: 1 } }]]])).toThrow(
      TypeError,
    );
    expect(() => new JournalEncoder().encode(1, [], [[1, 0, [true]]])).toThrow(TypeError);
  });
});
