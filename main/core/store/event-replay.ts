/**
 * The read side of the event history: paged replay in session order (keyset pagination over the
 * ordering columns of migrations/0010-events.ts), plus the positions and counts replay plans use.
 * Rows come back as arrays (`.raw()`), and each event's stored JSON text is handed on as is.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { AepEvent } from '../../../common/aep/envelope';
import { NO_REPLAY_SQL, type ReplaySql } from './replay-filter';

/** A replay position within one session. */
export interface StorePosition {
  readonly epoch: number;
  readonly seq: number;
}

/** One stored event as replay yields it. */
export interface StoredEvent {
  readonly json: string;
  /** The parsed envelope; parsed from `json` on first access (replay mostly forwards the text). */
  readonly event: AepEvent;
  /**
   * The event's type, session, own epoch and own seq (routing columns, no parse needed). The own
   * epoch is that of the event's own position: undefined when the event has no epoch, or no seq.
   */
  readonly type: string;
  readonly session: string;
  readonly ownEpoch: number | undefined;
  readonly ownSeq: number | undefined;
  /** The event's position; for a seq-less event, the position it was anchored to at insert. */
  readonly epoch: number;
  readonly seq: number;
  /** False for seq-less (foreign-emitter) events, whose position is an anchor, not their own. */
  readonly sequenced: boolean;
}

interface KeyRow {
  ord_epoch: number;
  ord_seq: number;
  ord_tie: number;
  n: number;
}

/**
 * A row's position in two integer columns instead of four: in a replay every column read costs
 * about 0.2 µs per row (reading `n` alone by row number took 1.2 µs per row, `n` and four more
 * integer columns 2.3 µs, docs/ARCHITECTURE.md). A sequenced event's ordering key is its
 * own (epoch ?? 0, seq, 0) and a seq-less one has no seq and an anchor key with tie ≥ 1 (migration
 * 0010), so: the seq code is the own seq (≥ 0), or -1 - the anchor's seq for a seq-less event; the
 * epoch code is the key's epoch, or -1 - it when the event has no epoch of its own position.
 * Decoded by `StoredRow`.
 */
const POSITION_CODES = `CASE WHEN seq IS NULL THEN -1 - ord_seq ELSE seq END,
  CASE WHEN seq IS NULL OR epoch IS NULL THEN -1 - ord_epoch ELSE ord_epoch END`;

/**
 * A replay row in raw mode: json, type, seq code, epoch code (POSITION_CODES). The ordering key's
 * tie and row number are not read per row (the two columns cost about 6 % of a session's read
 * over 100 interleaved sessions): a full page's last key comes from an index-only lookup
 * (`windowEndStmt`) instead.
 */
type ReplayRow = [string, string, number, number];
/** A replay-all row in raw mode: n, json, type, session, seq code, epoch code (POSITION_CODES). */
type HeldRow = [number, string, string, string, number, number];

/** What `replayHeld` returns: one pass over the in-order sessions, and the sessions it leaves out. */
export interface HeldReplay {
  /** Every row held by a session not in `disordered`, in row-number order, a page at a time. */
  readonly pages: IterableIterator<StoredEvent[]>;
  /** The sessions held out of row order (migration 0120), sorted: replay each with `replayPages`. */
  readonly disordered: readonly string[];
}

/** A replayed row; the envelope is parsed only if someone reads `event`. */
class StoredRow implements StoredEvent {
  private parsed: AepEvent | undefined;
  readonly ownEpoch: number | undefined;
  readonly ownSeq: number | undefined;
  readonly sequenced: boolean;

  readonly epoch: number;
  readonly seq: number;

  constructor(
    readonly json: string,
    readonly type: string,
    readonly session: string,
    seqCode: number,
    epochCode: number,
  ) {
    this.sequenced = seqCode >= 0;
    this.seq = this.sequenced ? seqCode : -1 - seqCode;
    this.epoch = epochCode >= 0 ? epochCode : -1 - epochCode;
    this.ownSeq = this.sequenced ? seqCode : undefined;
    this.ownEpoch = this.sequenced && epochCode >= 0 ? epochCode : undefined;
  }

  get event(): AepEvent {
    return (this.parsed ??= JSON.parse(this.json) as AepEvent);
  }
}

/** A session's raw replay rows as stored events. */
const storedRows = (rows: readonly ReplayRow[], session: string): StoredEvent[] =>
  rows.map(([json, type, seqCode, epochCode]) => new StoredRow(json, type, session, seqCode, epochCode));

/** Rows read per replay page unless the store is told otherwise. */
export const DEFAULT_REPLAY_PAGE_SIZE = 1_000;
/**
 * How long one page's read may hold the event loop. A page is read in one `all()` call (a fifth
 * cheaper per row than stepping an iterator), which cannot stop early, so its row limit is set
 * from the read rate of the pages before it: half the budget's worth of rows, so a page that
 * reads twice as slowly as the last still ends within it.
 */
export const PAGE_BUDGET_MS = 10;
const PAGE_TARGET_MS = PAGE_BUDGET_MS / 2;
/**
 * The fewest rows a page asks for (unless the page size is smaller), however slow the reads: a
 * disk that takes 8 ms a random read (a cold spinning disk) still ends a page in about 32 ms.
 */
export const MIN_PAGE_ROWS = 4;
/**
 * The read time per row assumed before any page was read (ms): the first page asks for 8 rows, so
 * a cold disk holds the loop briefly even then; from a warm cache the pages double to the page
 * size within about ten pages.
 */
const FIRST_MS_PER_ROW = PAGE_TARGET_MS / 8;
/**
 * Every replay's first page (or filtered window) asks for at most this many rows, and each next one
 * for twice as many, up to the limit the recent rate sets: that rate was learned on other rows (a
 * session not read for a while is cold; the growth bench's filtered replay, after warm replays of
 * everything, read its first 1,000-row window at 18 µs a row, 18 ms, against 2 µs a row for the
 * rest). Eight pages reach 1,000 rows.
 */
export const FIRST_PAGE_ROWS = 8;
/**
 * Rows per page of the replay-all pass. Its rows are read in row-number order, a table page at a
 * time, so a page of them takes about a millisecond; it is read with `all()` (a third cheaper per
 * row than stepping an iterator), which cannot stop early, so its size is the bound.
 */
const HELD_PAGE_ROWS = 256;
/** Options of `EventReplay`. */
export interface EventReplayOptions {
  readonly pageSize?: number;
}

/** The store's reader: replay pages, retained bounds and held sessions. */
export class EventReplay {
  private readonly pageSize: number;
  private readonly replayStmt: Statement;
  private readonly windowEndStmt: Statement;
  private readonly filteredStmts = new Map<string, Statement>();
  private readonly earliestStmt: Statement;
  private readonly trimmedThroughStmt: Statement;
  private readonly heldStmt: Statement;
  private readonly countsStmt: Statement;
  private readonly nthFromEndStmt: Statement;
  private readonly positionBeforeStmt: Statement;
  private readonly heldRowsStmt: Statement;
  private readonly topStmt: Statement;
  private readonly disorderedStmt: Statement;
  /** The recent read time per row of session replay pages (ms), which sizes the next page. */
  private msPerRow = FIRST_MS_PER_ROW;

  constructor(
    private readonly db: Database,
    options: EventReplayOptions = {},
  ) {
    this.pageSize = Math.max(1, Math.trunc(options.pageSize ?? DEFAULT_REPLAY_PAGE_SIZE));
    // Raw (array) rows: replay is the hot read path and skips building an object per row.
    this.replayStmt = db
      .prepare(
        `SELECT json, type, ${POSITION_CODES} FROM events
         WHERE session = ? AND (ord_epoch, ord_seq, ord_tie, n) > (?, ?, ?, ?)
         ORDER BY ord_epoch, ord_seq, ord_tie, n LIMIT ?`,
      )
      .raw(true);
    // The last row of the next scan window of a filtered replay, or of a full page (index only).
    this.windowEndStmt = db.prepare(
      `SELECT ord_epoch, ord_seq, ord_tie, n FROM events
       WHERE session = ? AND (ord_epoch, ord_seq, ord_tie, n) > (?, ?, ?, ?)
       ORDER BY ord_epoch, ord_seq, ord_tie, n LIMIT 1 OFFSET ?`,
    );
    // Where a session's tail begins: two index-only lookups from the end.
    this.nthFromEndStmt = db.prepare(
      `SELECT ord_epoch AS epoch, ord_seq AS seq FROM events WHERE session = ?
       ORDER BY ord_epoch DESC, ord_seq DESC, ord_tie DESC, n DESC LIMIT 1 OFFSET ?`,
    );
    this.positionBeforeStmt = db.prepare(
      `SELECT ord_epoch AS epoch, ord_seq AS seq FROM events WHERE session = ? AND (ord_epoch, ord_seq) < (?, ?)
       ORDER BY ord_epoch DESC, ord_seq DESC, ord_tie DESC, n DESC LIMIT 1`,
    );
    this.earliestStmt = db.prepare(
      `SELECT ord_epoch, ord_seq FROM events WHERE session = ? ORDER BY ord_epoch, ord_seq, ord_tie, n LIMIT 1`,
    );
    this.trimmedThroughStmt = db.prepare(
      `SELECT trimmed_epoch, trimmed_seq FROM event_sessions WHERE session = ?`,
    );
    this.heldStmt = db.prepare(
      `SELECT session FROM event_sessions WHERE held > 0 ORDER BY session`,
    );
    this.heldRowsStmt = db
      .prepare(
        `SELECT n, json, type, session, ${POSITION_CODES} FROM events
         WHERE n > ? AND n <= ? ORDER BY n LIMIT ?`,
      )
      .raw(true);
    this.topStmt = db.prepare('SELECT MAX(n) FROM events').pluck();
    this.disorderedStmt = db
      .prepare('SELECT session FROM event_sessions WHERE held > 0 AND disordered = 1 ORDER BY session')
      .pluck();
    this.countsStmt = db.prepare(
      `SELECT COALESCE(SUM(held), 0) AS events, COUNT(*) AS sessions FROM event_sessions WHERE held > 0`,
    );
  }

  /** See `EventStore.replayHeld`. */
  replayHeld(): HeldReplay {
    // The highest row first, then the flags: a session flagged after it was read can only have
    // been flagged by a row above it, which the pass does not read.
    const top = (this.topStmt.get() as number | null) ?? 0;
    const disordered = this.disorderedStmt.all() as string[];
    return { pages: this.heldPages(top, new Set(disordered)), disordered };
  }

  private *heldPages(top: number, skip: ReadonlySet<string>): IterableIterator<StoredEvent[]> {
    const limit = Math.min(this.pageSize, HELD_PAGE_ROWS);
    let after = 0;
    for (;;) {
      const rows = this.heldRowsStmt.all(after, top, limit) as HeldRow[];
      const page: StoredEvent[] = [];
      for (const [, json, type, session, seqCode, epochCode] of rows)
        if (!skip.has(session)) page.push(new StoredRow(json, type, session, seqCode, epochCode));
      yield page;
      if (rows.length < limit) return;
      after = rows[rows.length - 1][0];
    }
  }

  /** See `EventStore.replayPages`. */
  *replayPages(
    session: string,
    after: StorePosition | null,
    sql: ReplaySql = NO_REPLAY_SQL,
  ): IterableIterator<StoredEvent[]> {
    // (epoch, seq, 0, max n) excludes every sequenced row at `after`; (-1, …) starts before any row.
    let key: [number, number, number, number] =
      after === null ? [-1, 0, 0, 0] : [after.epoch, after.seq, 0, Number.MAX_SAFE_INTEGER];
    const toPage = (rows: ReplayRow[]): StoredEvent[] => storedRows(rows, session);
    let ramp = FIRST_PAGE_ROWS;
    const nextRows = (): number => {
      const rows = Math.min(this.pageRows(), ramp);
      ramp = Math.min(ramp * 2, this.pageSize);
      return rows;
    };
    if (sql.where === '') {
      for (let limit = nextRows(); ; ) {
        const started = performance.now();
        const rows = this.replayStmt.all(session, ...key, limit) as ReplayRow[];
        this.observe(rows.length, performance.now() - started);
        const done = rows.length < limit;
        // The next key is the page's last row's, looked up before the page is handed out (nothing
        // can write in between: the read and the lookup run in the same synchronous step).
        if (!done) {
          const end = this.windowEndStmt.get(session, ...key, limit - 1) as KeyRow;
          key = [end.ord_epoch, end.ord_seq, end.ord_tie, end.n];
        }
        yield toPage(rows);
        if (done) return;
        limit = nextRows();
      }
    }
    // A filtered page scans a window of the session's rows, sized like the pages above from the
    // recent read time per row (a window's rows are read even when none matches).
    const filtered = this.filteredStmt(sql);
    for (;;) {
      const window = nextRows();
      const started = performance.now();
      const end = this.windowEndStmt.get(session, ...key, window - 1) as KeyRow | undefined;
      const last: [number, number, number, number] =
        end === undefined
          ? [Number.MAX_SAFE_INTEGER, 0, 0, 0]
          : [end.ord_epoch, end.ord_seq, end.ord_tie, end.n];
      const rows = filtered.all(session, ...key, ...last, ...sql.values) as ReplayRow[];
      // Only a full window tells the rate (a session's last one may scan a few rows).
      if (end !== undefined) this.observe(window, performance.now() - started);
      yield toPage(rows);
      if (end === undefined) return;
      key = last;
    }
  }

  /** The row limit of the next session replay page: the page target's worth at the recent rate. */
  private pageRows(): number {
    const fit = Math.floor(PAGE_TARGET_MS / this.msPerRow);
    return Math.min(this.pageSize, Math.max(MIN_PAGE_ROWS, fit));
  }

  /** Folds a page's read time into the rate the next page is sized by (pages too small to tell skip it). */
  private observe(rows: number, ms: number): void {
    if (rows < MIN_PAGE_ROWS) return;
    this.msPerRow = (this.msPerRow + ms / rows) / 2;
  }

  private filteredStmt(sql: ReplaySql): Statement {
    let stmt = this.filteredStmts.get(sql.shape);
    if (stmt === undefined) {
      stmt = this.db
        .prepare(
          `SELECT json, type, ${POSITION_CODES} FROM events
           WHERE session = ? AND (ord_epoch, ord_seq, ord_tie, n) > (?, ?, ?, ?)
             AND (ord_epoch, ord_seq, ord_tie, n) <= (?, ?, ?, ?) ${sql.where}
           ORDER BY ord_epoch, ord_seq, ord_tie, n`,
        )
        .raw(true);
      // Bounded: shapes come from subscribers' filters.
      if (this.filteredStmts.size >= 64) this.filteredStmts.clear();
      this.filteredStmts.set(sql.shape, stmt);
    }
    return stmt;
  }

  /** See `EventStore.tailStart`. */
  tailStart(session: string, count: number): StorePosition | null {
    const first = this.nthFromEndStmt.get(session, Math.max(0, count - 1)) as StorePosition | undefined;
    if (first === undefined) return null;
    return (this.positionBeforeStmt.get(session, first.epoch, first.seq) as StorePosition | undefined) ?? null;
  }

  /** See `EventStore.earliest`. */
  earliest(session: string): StorePosition | null {
    const row = this.earliestStmt.get(session) as
      { ord_epoch: number; ord_seq: number } | undefined;
    return row === undefined ? null : { epoch: row.ord_epoch, seq: row.ord_seq };
  }

  /** See `EventStore.trimmedThrough`. */
  trimmedThrough(session: string): StorePosition | null {
    const row = this.trimmedThroughStmt.get(session) as
      { trimmed_epoch: number | null; trimmed_seq: number | null } | undefined;
    return row === undefined || row.trimmed_epoch === null || row.trimmed_seq === null
      ? null
      : { epoch: row.trimmed_epoch, seq: row.trimmed_seq };
  }

  /** See `EventStore.heldSessions`. */
  heldSessions(): string[] {
    return (this.heldStmt.all() as { session: string }[]).map((row) => row.session);
  }

  /** See `EventStore.counts`. */
  counts(): { events: number; sessions: number } {
    const row = this.countsStmt.get() as { events: number; sessions: number };
    return { events: row.events, sessions: row.sessions };
  }
}
