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
  /** The event's type, session, own epoch and own seq (routing columns, no parse needed). */
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

/** A replay row in raw mode: ord_epoch, ord_seq, ord_tie, n, seq, json, type, epoch. */
type ReplayRow = [number, number, number, number, number | null, string, string, number | null];

/**
 * A replayed row over its raw columns (no copy of them per row); the envelope is parsed only if
 * someone reads `event`.
 */
class StoredRow implements StoredEvent {
  private parsed: AepEvent | undefined;

  constructor(
    private readonly row: ReplayRow,
    readonly session: string,
  ) {}

  get json(): string {
    return this.row[5];
  }
  get type(): string {
    return this.row[6];
  }
  get ownEpoch(): number | undefined {
    return this.row[7] ?? undefined;
  }
  get ownSeq(): number | undefined {
    return this.row[4] ?? undefined;
  }
  get epoch(): number {
    return this.row[0];
  }
  get seq(): number {
    return this.row[1];
  }
  get sequenced(): boolean {
    return this.row[4] !== null;
  }

  get event(): AepEvent {
    return (this.parsed ??= JSON.parse(this.json) as AepEvent);
  }
}

/** Rows read per replay page unless the store is told otherwise. */
export const DEFAULT_REPLAY_PAGE_SIZE = 1_000;
/**
 * A page read that took longer than this halves the next page's row limit; a quicker one doubles
 * it again (up to the page size). The first page of a replay reads at most `FIRST_PAGE_ROWS`.
 */
export const PAGE_BUDGET_MS = 10;
const FIRST_PAGE_ROWS = 256;
const MIN_PAGE_ROWS = 32;

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

  constructor(
    private readonly db: Database,
    pageSize: number = DEFAULT_REPLAY_PAGE_SIZE,
  ) {
    this.pageSize = Math.max(1, Math.trunc(pageSize));
    // Raw (array) rows: replay is the hot read path and skips building an object per row.
    this.replayStmt = db
      .prepare(
        `SELECT ord_epoch, ord_seq, ord_tie, n, seq, json, type, epoch FROM events
         WHERE session = ? AND (ord_epoch, ord_seq, ord_tie, n) > (?, ?, ?, ?)
         ORDER BY ord_epoch, ord_seq, ord_tie, n LIMIT ?`,
      )
      .raw(true);
    // The last row of the next scan window of a filtered replay (index only).
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
    this.countsStmt = db.prepare(
      `SELECT COALESCE(SUM(held), 0) AS events, COUNT(*) AS sessions FROM event_sessions WHERE held > 0`,
    );
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
    // The page's array is reused: each raw row is wrapped in place.
    const toPage = (rows: ReplayRow[]): StoredEvent[] => {
      const page = rows as unknown as StoredEvent[];
      for (let i = 0; i < rows.length; i++) page[i] = new StoredRow(rows[i], session);
      return page;
    };
    if (sql.where === '') {
      // One statement run per page (`all`: no per-row call into SQLite). A page ends at its row
      // limit, which follows the time the reads take, so a page read from a cold disk or on a busy
      // machine holds the event loop only briefly and the next one is shorter.
      let limit = Math.min(this.pageSize, FIRST_PAGE_ROWS);
      for (;;) {
        const started = performance.now();
        const rows = this.replayStmt.all(session, ...key, limit) as ReplayRow[];
        const took = performance.now() - started;
        const full = rows.length === limit;
        if (full) {
          const [epoch, seq, tie, n] = rows[rows.length - 1];
          key = [epoch, seq, tie, n];
        }
        yield toPage(rows);
        if (!full) return;
        limit =
          took > PAGE_BUDGET_MS
            ? Math.max(Math.min(MIN_PAGE_ROWS, this.pageSize), limit >> 1)
            : Math.min(this.pageSize, limit * 2);
      }
    }
    const window = this.pageSize;
    const filtered = this.filteredStmt(sql);
    for (;;) {
      const end = this.windowEndStmt.get(session, ...key, window - 1) as KeyRow | undefined;
      const last: [number, number, number, number] =
        end === undefined
          ? [Number.MAX_SAFE_INTEGER, 0, 0, 0]
          : [end.ord_epoch, end.ord_seq, end.ord_tie, end.n];
      yield toPage(filtered.all(session, ...key, ...last, ...sql.values) as ReplayRow[]);
      if (end === undefined) return;
      key = last;
    }
  }

  private filteredStmt(sql: ReplaySql): Statement {
    let stmt = this.filteredStmts.get(sql.shape);
    if (stmt === undefined) {
      stmt = this.db
        .prepare(
          `SELECT ord_epoch, ord_seq, ord_tie, n, seq, json, type, epoch FROM events
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
