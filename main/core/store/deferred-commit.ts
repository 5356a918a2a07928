/**
 * Deferred commits: a group commit made durable by one write to a redo journal, SQLite's COMMIT
 * later. At concurrency 1 every group commit carries one hook, and its COMMIT writes each page the
 * hook touched as a WAL frame (about eight frames, two writes each, and the lock calls around
 * them). With deferred commits a turn's writes go into one write transaction that stays open
 * across turns; what makes them durable before any writer hears "done" is one record written to
 * the connection's journal (`<database>-turns`): the turn's write statements with their
 * parameters, framed and checksummed (journal-codec.ts). Like the WAL under `synchronous =
 * NORMAL`, the write survives a kill -9 (it is in the kernel's page cache) but is not synced for a
 * power cut.
 *
 * The open transaction is committed `windowMs` after its first turn, when the journal passes
 * `maxJournalBytes`, before any other write on the connection (a statement run outside a turn,
 * `exec`, `pragma`, `transaction`, `backup`, `serialize`, `close`), and on `flush`. Its COMMIT
 * records the last journal sequence it holds (table `commit_journal`, migration 0130), and the
 * next generation of the journal is written from the file's start. At open, the records after
 * that sequence are replayed before anything else reads the database: each acknowledged turn comes
 * back once, in order. A torn last record (a write cut by a power loss) was never acknowledged,
 * and it and anything after it are ignored. Derived rows that need no journal (the search index)
 * join the open transaction through `derived`.
 *
 * Rows a turn rewrites that nothing reads before the COMMIT (a session's last-seen time, a
 * session's count of held events) go through `later`: the write is journaled with its turn, as
 * any other, but it runs only once per open transaction, just before its COMMIT, coalesced per
 * row (`key`) with the later writes of the same row, so a row that thirty hooks touch is written
 * once rather than thirty times. A coalesced write must give what its turns' writes would have
 * given run one after another (the last value of a column, a sum of increments, a maximum),
 * because the journal replays them one by one. Whatever reads the connection first runs the
 * pending ones (every statement that reads is watched for it), so a read never sees the row
 * older than its journal; `peek` reads without that, for a reader that knows the rows it reads
 * have nothing pending.
 *
 * Reads on this connection see the open transaction's rows (SQLite shows a connection its own
 * writes); other connections see them after the COMMIT, at most `windowMs` later.
 * `inCallerTransaction(db)` is the test for "am I inside someone's transaction" that code of this
 * connection must use instead of `db.inTransaction`, which also reports the deferred one (lint
 * enforces it).
 */
import {
  closeSync,
  constants,
  ftruncateSync,
  openSync,
  readFileSync,
  statSync,
} from 'node:fs';
import type { Database, Statement } from 'better-sqlite3';
import { mapFileStart, putAt } from './file-map';
import {
  JournalEncoder,
  decodeJournal,
  type JournalRecord,
  type JournalWrite,
} from './journal-codec';

/** Options of `deferCommits`. */
export interface DeferredCommitOptions {
  /** The journal file (created 0600 when absent). */
  readonly journalPath: string;
  /** How long the first turn of an open transaction waits at most for its COMMIT (ms, default 50). */
  readonly windowMs?: number;
  /** The journal size past which the open transaction is committed at the end of the turn (default 1 MiB). */
  readonly maxJournalBytes?: number;
  /** A deferred COMMIT failed (its turns stay in the journal and are tried again). */
  readonly onError?: (error: unknown) => void;
  /**
   * False: every record is written with `pwrite`. By default the journal's first
   * `2 × maxJournalBytes` are a shared memory map where one can be had (file-map.ts), and a
   * record there is a copy into the page cache instead of a system call.
   */
  readonly map?: boolean;
}

/** What the deferral has done (tests, benches). */
export interface DeferredCommitStats {
  /** Turns written into an open transaction and journaled. */
  readonly turns: number;
  /** COMMITs of the open transaction. */
  readonly commits: number;
  /** Of those, the COMMITs another write on the connection forced. */
  readonly forced: number;
  /** Writes journaled through `later`. */
  readonly later: number;
  /** Statements run for them (coalesced per row: at most one per row and open transaction, unless a read came between). */
  readonly applied: number;
}

/**
 * The COMMIT writes every page the window's turns touched at once, holding the event loop while it
 * does (about 2.3 ms at the median under 16 concurrent hook callers with a 100 ms window, what sets
 * their p99): a 50 ms window halves that, at no CPU per hook that an interleaved A/B could tell.
 */
export const DEFAULT_WINDOW_MS = 50;
/** Also bounds what an open transaction keeps in memory to write again after a rollback (its turns' writes). */
export const DEFAULT_MAX_JOURNAL_BYTES = 1024 * 1024;

type Method = 'run' | 'get' | 'all' | 'iterate';
const METHODS: readonly Method[] = ['run', 'get', 'all', 'iterate'];

/** One write statement a turn ran: the statement, 0 = run / 1 = all, its arguments at the call. */
interface Recorded {
  readonly stmt: Statement;
  readonly kind: 0 | 1;
  readonly args: unknown[];
}

const deferrals = new WeakMap<Database, DeferredCommit>();

/** True when a caller's transaction is open on `db` (the deferred one does not count). */
export function inCallerTransaction(db: Database): boolean {
  const deferred = deferrals.get(db);
  return db.inTransaction && (deferred === undefined || !deferred.isOpen);
}

/**
 * True when `db` holds writes no other connection can see yet: a caller's transaction or the
 * deferred one is open. A second connection reads exactly what `db` reads only when this is false.
 */
export function holdsUncommitted(db: Database): boolean {
  return db.inTransaction;
}

/** The deferral of `db`, when `deferCommits` turned it on. */
export const deferredCommitOf = (db: Database): DeferredCommit | undefined => deferrals.get(db);

/**
 * Replays what `journalPath` holds past the recorded sequence into `db`, then turns deferred
 * commits on for it. Call on a freshly opened and migrated connection, before anything else uses
 * it (statements prepared earlier are not watched). Throws when the journal cannot be replayed.
 */
export function deferCommits(db: Database, options: DeferredCommitOptions): DeferredCommit {
  const last = replayJournal(db, options.journalPath, true);
  const deferred = new DeferredCommit(db, options, last);
  deferrals.set(db, deferred);
  return deferred;
}

/** The open-across-turns write transaction of one connection and its journal. */
export class DeferredCommit {
  private open = false;
  /** Set while `derived` runs: its statements neither record nor commit. */
  private passthrough = false;
  /** The writes of the turn being written, or null outside `runTurn`. */
  private recording: Recorded[] | null = null;
  /** The `later` writes not run yet, one per row key (coalesced), in the order each row was first written. */
  private readonly pending = new Map<string, { readonly stmt: Statement; args: unknown[] }>();
  /** Set while `peek` runs: reads do not run the pending writes. */
  private peeking = false;
  /** Counts the transactions opened (a cache of rows valid for one open transaction keys on it). */
  private opened = 0;
  /** Statement ids named in the journal since it last started over. */
  private readonly ids = new Map<string, number>();
  private seq: number;
  /** Where the next record goes: the bytes this generation of the journal holds. */
  private journalBytes = 0;
  private timer: NodeJS.Timeout | undefined;
  /** The journaled turns the open transaction holds, kept to write them again after a rollback. */
  private uncommitted: Recorded[][] = [];
  /** Set while journaled turns could not be written again: every turn fails until they are. */
  private broken: unknown = undefined;
  private fd: number;
  /** The journal's start, mapped shared, or undefined (every record is written). */
  private map: Buffer | undefined;
  private counts = { turns: 0, commits: 0, forced: 0, later: 0, applied: 0 };
  private readonly encoder = new JournalEncoder();
  private readonly windowMs: number;
  private readonly maxJournalBytes: number;
  private readonly begin: Statement;
  private readonly commitStmt: Statement;
  private readonly rollback: Statement;
  private readonly mark: Statement;

  constructor(
    private readonly db: Database,
    private readonly options: DeferredCommitOptions,
    lastSeq: number,
  ) {
    this.windowMs = options.windowMs ?? DEFAULT_WINDOW_MS;
    this.maxJournalBytes = options.maxJournalBytes ?? DEFAULT_MAX_JOURNAL_BYTES;
    this.seq = lastSeq;
    // Prepared before the connection is watched: the deferral's own statements are not "other writes".
    this.begin = db.prepare('BEGIN IMMEDIATE');
    this.commitStmt = db.prepare('COMMIT');
    this.rollback = db.prepare('ROLLBACK');
    this.mark = db.prepare('UPDATE commit_journal SET seq = ? WHERE id = 1');
    // Written at positions, not appended: each generation overwrites the last one's pages
    // (already in the page cache) instead of growing the file again after a truncation.
    this.fd = openSync(options.journalPath, constants.O_RDWR | constants.O_CREAT, 0o600);
    // A generation ends at the end of the turn that passes maxJournalBytes: twice that holds it
    // unless that one turn is itself larger (its record is then written).
    this.map = options.map === false ? undefined : mapFileStart(this.fd, 2 * this.maxJournalBytes);
    this.watch();
  }

  /** True when the journal's start is mapped (records there are copied, not written). */
  get mapped(): boolean {
    return this.map !== undefined;
  }

  /** Whether the deferred transaction is open. */
  get isOpen(): boolean {
    return this.open;
  }

  stats(): DeferredCommitStats {
    return { ...this.counts };
  }

  /** Whether a turn's writes are being written (`later` may be called). */
  get inTurn(): boolean {
    return this.recording !== null;
  }

  /**
   * Which open transaction this is: it changes whenever one is opened. What a writer derived from
   * rows it alone writes during a turn (a count it keeps beside its `later` writes) stays true
   * while this does not change: any write of another kind commits the open transaction first.
   */
  get generation(): number {
    return this.opened;
  }

  /**
   * Inside a turn's writes: journals `stmt` run with `args` as one of the turn's writes, and runs
   * it before the COMMIT of the open transaction (or before the next read of the connection), as
   * one statement for every `later` write of the same `key` since: `merge` folds the earlier
   * arguments with these (default: these replace them). Throws outside a turn.
   */
  later(
    key: string,
    stmt: Statement,
    args: unknown[],
    merge?: (earlier: unknown[], next: unknown[]) => unknown[],
  ): void {
    const recording = this.recording;
    if (recording === null) throw new Error('deferred commit: later() outside a turn');
    const copied = copyArgs(args);
    recording.push({ stmt, kind: 0, args: copied });
    this.counts.later++;
    const earlier = this.pending.get(key);
    if (earlier === undefined) this.pending.set(key, { stmt, args: copied });
    else earlier.args = merge === undefined ? copied : merge(earlier.args, copied);
  }

  /** Runs `read` without running the pending `later` writes first (the rows it reads have none). */
  peek<T>(read: () => T): T {
    if (this.peeking) return read();
    this.peeking = true;
    try {
      return read();
    } finally {
      this.peeking = false;
    }
  }

  /**
   * Runs `write` (a turn's writes, statements only) inside the open transaction and journals what
   * it wrote. Returns undefined once the turn is durable; on a failure nothing of the turn is
   * kept, the earlier turns are committed on their own, and `broken` tells whether those could
   * not be (then every write of the connection should fail until they are).
   */
  runTurn(write: () => void): { error: unknown; broken: boolean } | undefined {
    if (this.broken !== undefined && !this.writeAgain())
      return { error: this.broken, broken: true };
    if (!this.open) {
      try {
        this.openTransaction();
      } catch (error) {
        return { error, broken: false };
      }
    }
    const writes: Recorded[] = [];
    this.recording = writes;
    try {
      write();
    } catch (error) {
      this.recording = null;
      this.abort();
      return { error, broken: this.broken !== undefined };
    }
    this.recording = null;
    if (writes.length === 0) return undefined;
    try {
      this.append(writes);
    } catch (error) {
      this.abort();
      return { error, broken: this.broken !== undefined };
    }
    this.uncommitted.push(writes);
    this.counts.turns++;
    if (this.journalBytes >= this.maxJournalBytes) this.commit();
    return undefined;
  }

  /**
   * Runs `write` inside the open transaction without journaling it, for derived rows that need no
   * journal: the search index, whose position is its own highest row, so rows lost with an
   * uncommitted transaction (a crash, a rollback) are indexed again by its next run. Its writes
   * then commit with the turns around them instead of forcing a COMMIT of their own.
   */
  derived<T>(write: () => T): T {
    if (this.recording !== null)
      throw new Error("deferred commit: derived writes inside a turn's writes");
    if (this.broken !== undefined && !this.writeAgain()) throw this.broken;
    if (!this.open) this.openTransaction();
    this.passthrough = true;
    try {
      return write();
    } catch (error) {
      // An error SQLite answers with a rollback of the whole transaction took the turns with it.
      if (!this.db.inTransaction) this.abort();
      throw error;
    } finally {
      this.passthrough = false;
    }
  }

  /** Commits the open transaction now (its turns are durable either way; this makes them visible to other connections). */
  commit(forced = false): void {
    if (!this.open) return;
    if (this.recording !== null)
      throw new Error('deferred commit: a write outside the turn ran inside a turn');
    this.stopTimer();
    try {
      this.applyPending();
      this.mark.run(this.seq);
      this.commitStmt.run();
    } catch (error) {
      this.options.onError?.(error);
      this.abort();
      return;
    }
    this.counts.commits++;
    if (forced) this.counts.forced++;
    this.committed();
  }

  /** Commits, then stops journaling (the connection is about to close). */
  close(): void {
    this.commit();
    if (this.broken !== undefined) return; // the journal keeps them for the next open
    try {
      closeSync(this.fd);
    } catch {
      // Closed already.
    }
    this.fd = -1;
    // Dropped with the connection (the memory is unmapped when the buffer is collected).
    this.map = undefined;
  }

  /**
   * The open transaction's writes are in the file: the journal starts over at its beginning. The
   * older records left behind it are at or below the recorded sequence, and a reader stops at the
   * first one whose sequence does not follow (`readJournal`).
   */
  private committed(): void {
    this.open = false;
    this.pending.clear();
    this.uncommitted = [];
    this.broken = undefined;
    this.ids.clear();
    this.journalBytes = 0;
  }

  /** Rolls the open transaction back and writes its journaled turns again in one of their own. */
  private abort(): void {
    this.stopTimer();
    this.rollbackQuietly();
    this.open = false;
    // The journaled turns are written again whole, their `later` writes with them.
    this.pending.clear();
    this.writeAgain();
  }

  /**
   * Runs the pending `later` writes inside the open transaction, neither recorded (their turns
   * journaled them) nor committing. Throws what a statement threw (the caller aborts or fails its turn).
   */
  private applyPending(): void {
    if (this.pending.size === 0) return;
    const recording = this.recording;
    const passthrough = this.passthrough;
    this.recording = null;
    this.passthrough = true;
    try {
      // Each leaves the queue once it ran: after a throw the rest stay pending (none runs twice).
      for (const [key, { stmt, args }] of this.pending) {
        stmt.run(...args);
        this.pending.delete(key);
        this.counts.applied++;
      }
    } finally {
      this.recording = recording;
      this.passthrough = passthrough;
    }
  }

  /** Before a read of the connection: the pending `later` writes run, so it sees what its turns wrote. */
  private beforeRead(): void {
    if (this.peeking || !this.open) return;
    try {
      this.applyPending();
    } catch (error) {
      // Inside a turn its writer fails it (and the turns are written again); outside, here.
      if (this.recording === null && !this.passthrough) this.abort();
      throw error;
    }
  }

  /** Writes the journaled turns not yet in the file in a transaction of their own; false when that failed. */
  private writeAgain(): boolean {
    if (this.uncommitted.length === 0) {
      this.broken = undefined;
      return true;
    }
    try {
      this.begin.run();
      for (const turn of this.uncommitted)
        for (const { stmt, kind, args } of turn) {
          if (kind === 0) stmt.run(...args);
          else stmt.all(...args);
        }
      this.mark.run(this.seq);
      this.commitStmt.run();
    } catch (error) {
      this.rollbackQuietly();
      this.broken = error;
      return false;
    }
    this.counts.commits++;
    this.committed();
    return true;
  }

  /** BEGIN IMMEDIATE, and the window after which it commits. */
  private openTransaction(): void {
    this.begin.run();
    this.open = true;
    this.opened++;
    this.timer = setTimeout(() => this.commit(), this.windowMs);
  }

  /** Rolls back whatever transaction is open (SQLite may have rolled it back itself). */
  private rollbackQuietly(): void {
    if (!this.db.inTransaction) return;
    try {
      this.rollback.run();
    } catch {
      // Rolled back already.
    }
  }

  private stopTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Writes one record for `writes` after the last one (throws when the journal cannot be written). */
  private append(writes: readonly Recorded[]): void {
    const defs: [number, string][] = [];
    const w: JournalWrite[] = writes.map(({ stmt, kind, args }) => {
      let id = this.ids.get(stmt.source);
      if (id === undefined) {
        id = this.ids.size + 1;
        this.ids.set(stmt.source, id);
        defs.push([id, stmt.source]);
      }
      return [id, kind, args];
    });
    try {
      const frame = this.encoder.encode(this.seq + 1, defs, w);
      // Copied into the map where it fits, else written. A copy cut short by a kill leaves a frame
      // whose CRC does not match its payload, which a reader ignores (the turn was not acknowledged).
      putAt(this.fd, this.map, frame, this.journalBytes, 'commit journal');
      this.journalBytes += frame.length;
    } catch (error) {
      for (const [, sql] of defs) this.ids.delete(sql);
      throw error;
    }
    this.seq++;
  }

  /** Watches the connection: write statements are recorded inside a turn, and commit the deferred transaction outside one. */
  private watch(): void {
    // The connection's own methods, shadowed per instance (better-sqlite3 defines them on its prototype).
    const db = this.db as unknown as Record<string, unknown>;
    // eslint-disable-next-line @typescript-eslint/no-this-alias
    const self = this;
    const proto = Object.getPrototypeOf(db) as Record<string, (...args: unknown[]) => unknown>;
    const before = (what: string): void => {
      if (this.recording !== null || this.passthrough)
        throw new Error(`deferred commit: ${what} inside a turn's or derived writes`);
      if (this.open) this.commit(true);
    };
    for (const name of ['exec', 'pragma', 'backup', 'serialize', 'loadExtension'] as const) {
      const original = proto[name];
      db[name] = function (this: Database, ...args: unknown[]) {
        before(name);
        return original.apply(this, args);
      };
    }
    const close = proto.close;
    db.close = function (this: Database) {
      if (this.open) self.close();
      return close.call(this);
    };
    const transaction = proto.transaction as (
      fn: (...a: unknown[]) => unknown,
    ) => Record<string, (...a: unknown[]) => unknown>;
    db.transaction = function (this: Database, fn: (...a: unknown[]) => unknown) {
      const made = transaction.call(this, fn);
      const wrap = (variant: (...a: unknown[]) => unknown) =>
        function (this: unknown, ...args: unknown[]) {
          before('a transaction');
          return variant.apply(this, args);
        };
      const out = wrap(made.default) as ((...a: unknown[]) => unknown) & Record<string, unknown>;
      out.default = out;
      out.deferred = wrap(made.deferred);
      out.immediate = wrap(made.immediate);
      out.exclusive = wrap(made.exclusive);
      out.database = made.database;
      return out;
    };
    const prepare = proto.prepare as (sql: string) => Statement;
    db.prepare = function (this: Database, sql: string) {
      const stmt = prepare.call(this, sql);
      if (!stmt.readonly) self.watchStatement(stmt);
      else self.watchRead(stmt);
      return stmt;
    };
  }

  /** A statement that only reads: the pending `later` writes run first. */
  private watchRead(stmt: Statement): void {
    const target = stmt as unknown as Record<string, (...args: unknown[]) => unknown>;
    const proto = Object.getPrototypeOf(stmt) as Record<string, (...args: unknown[]) => unknown>;
    for (const method of METHODS) {
      const original = proto[method];
      target[method] = (...args: unknown[]) => {
        if (this.pending.size > 0) this.beforeRead();
        return original.apply(stmt, args);
      };
    }
  }

  private watchStatement(stmt: Statement): void {
    const target = stmt as unknown as Record<string, (...args: unknown[]) => unknown>;
    const proto = Object.getPrototypeOf(stmt) as Record<string, (...args: unknown[]) => unknown>;
    let bound: unknown[] = [];
    const bind = proto.bind;
    target.bind = function (this: Statement, ...args: unknown[]) {
      bound = copyArgs(args);
      return bind.apply(this, args);
    };
    for (const method of METHODS) {
      const original = proto[method];
      const kind: 0 | 1 = method === 'run' ? 0 : 1;
      target[method] = (...args: unknown[]) => {
        const recording = this.recording;
        if (recording === null) {
          if (this.open && !this.passthrough) this.commit(true);
          return original.apply(stmt, args);
        }
        if (method === 'iterate')
          recording.push({ stmt, kind, args: args.length > 0 ? copyArgs(args) : bound });
        const result = original.apply(stmt, args);
        // Recorded once it ran: a statement that threw wrote nothing, and its writer decides.
        if (method !== 'iterate')
          recording.push({ stmt, kind, args: args.length > 0 ? copyArgs(args) : bound });
        return result;
      };
    }
  }
}

/**
 * The arguments as they were at the call: a parameters object or array is copied (a caller may
 * reuse it after the call); the rest array itself is the call's own, and values are immutable.
 */
function copyArgs(args: unknown[]): unknown[] {
  let plain = true;
  for (const a of args)
    if (a !== null && typeof a === 'object' && !ArrayBuffer.isView(a)) plain = false;
  if (plain) return args;
  return args.map((a) =>
    Array.isArray(a)
      ? a.slice()
      : a !== null && typeof a === 'object' && !ArrayBuffer.isView(a)
        ? { ...a }
        : a,
  );
}

/**
 * The journal's current records, in order: they end at a torn or garbled frame, or at a record
 * whose sequence does not follow the one before it (the rest of an older generation, which the
 * current one overwrote from the start).
 */
export function readJournal(path: string): JournalRecord[] {
  let records: JournalRecord[];
  try {
    records = decodeJournal(readFileSync(path));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  let n = 1;
  while (n < records.length && records[n].seq === records[n - 1].seq + 1) n++;
  return records.slice(0, n);
}

/**
 * Writes the journal's records past the sequence `db` records as committed, in one transaction
 * that holds the write lock while it reads them (a daemon appends only while it holds that lock),
 * and returns the last sequence. With `empty`, the journal is emptied after the COMMIT: only the
 * journal's own writer may do that (`deferCommits`), since another process could append to it
 * as soon as the lock is free. Throws when a record cannot be written.
 */
export function replayJournal(db: Database, path: string, empty = false): number {
  // Read only when there is something to replay (or a writer to continue): a database migrated
  // by another list of steps (tests) may have no commit_journal table.
  const size = journalSize(path);
  if (size === 0 && !empty) return 0;
  const markStmt = db.prepare('SELECT seq FROM commit_journal WHERE id = 1').pluck();
  let last = (markStmt.get() as number | undefined) ?? 0;
  if (size === 0) return last;
  // Another opener (a CLI command beside a running daemon) first looks without the lock, and waits
  // only briefly for it: a daemon holding it is alive and commits its own turns.
  if (!empty && !readJournal(path).some((r) => r.seq > last)) return last;
  const waitMs = empty ? null : LIVE_WRITER_WAIT_MS;
  let records = 0;
  const apply = db.transaction(() => {
    last = (markStmt.get() as number | undefined) ?? 0;
    const sqlById = new Map<number, string>();
    const statements = new Map<string, Statement>();
    for (const record of readJournal(path)) {
      records++;
      for (const [id, sql] of record.defs) sqlById.set(id, sql);
      if (record.seq <= last) continue;
      for (const [id, kind, args] of record.writes) {
        const sql = sqlById.get(id);
        if (sql === undefined)
          throw new Error(
            `record ${record.seq} names statement ${id}, which the journal never defined`,
          );
        let stmt = statements.get(sql);
        if (stmt === undefined) statements.set(sql, (stmt = db.prepare(sql)));
        if (kind === 0) stmt.run(...args);
        else stmt.all(...args);
      }
      last = record.seq;
    }
    db.prepare('UPDATE commit_journal SET seq = ? WHERE id = 1').run(last);
  });
  const saved = waitMs === null ? 0 : (db.pragma('busy_timeout', { simple: true }) as number);
  if (waitMs !== null) db.pragma(`busy_timeout = ${waitMs}`);
  try {
    apply.immediate();
  } catch (error) {
    if (waitMs !== null && /^SQLITE_BUSY/.test(String((error as { code?: unknown }).code)))
      return last;
    throw new Error(
      `the commit journal ${path} could not be written back into the database (${(error as Error).message}); move the file aside to start without the turns it holds`,
      { cause: error },
    );
  } finally {
    if (waitMs !== null) db.pragma(`busy_timeout = ${saved}`);
  }
  if (empty && records > 0) {
    const fd = openSync(path, 'r+');
    try {
      ftruncateSync(fd, 0);
    } finally {
      closeSync(fd);
    }
  }
  return last;
}

/** How long an opener that is not the journal's writer waits for the write lock to replay it (ms). */
const LIVE_WRITER_WAIT_MS = 250;

function journalSize(path: string): number {
  try {
    return statSync(path).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 0;
    throw error;
  }
}
