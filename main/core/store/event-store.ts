/**
 * The relay's durable event history: group-committed admission, paged replay, per-session retention.
 * Ordering columns and the placement of seq-less events are documented in migrations/0010-events.ts.
 */
import type { Database, Statement } from 'better-sqlite3';
import { isAgentScoped, type AepEvent } from '../../../common/aep/envelope';
import { NO_REPLAY_SQL, type ReplaySql } from './replay-filter';
import { StoreError, isStoreError, toStoreError } from './store-error';

/** One event to admit: the parsed envelope plus its verbatim JSON text (stored and replayed as is). */
export interface AdmitItem {
  readonly event: AepEvent;
  readonly json: string;
}

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

/** Construction options for `EventStore`. */
export interface EventStoreOptions {
  /** Retention: at most this many events are held per session (advertised as replay.buffer). */
  readonly maxEventsPerSession: number;
  /** Rows read per replay page; bounds memory during a replay. */
  readonly replayPageSize?: number;
}

interface PendingGroup {
  readonly items: readonly AdmitItem[];
  readonly resolve: (admitted: boolean[]) => void;
  readonly reject: (error: unknown) => void;
}

interface KeyRow {
  ord_epoch: number;
  ord_seq: number;
  ord_tie: number;
  n: number;
}

/** A replay row in raw mode: ord_epoch, ord_seq, ord_tie, n, seq, json, type, epoch. */
type ReplayRow = [number, number, number, number, number | null, string, string, number | null];

/** A replayed row; the envelope is parsed only if someone reads `event`. */
class StoredRow implements StoredEvent {
  private parsed: AepEvent | undefined;
  readonly ownEpoch: number | undefined;
  readonly ownSeq: number | undefined;
  readonly sequenced: boolean;

  constructor(
    readonly json: string,
    readonly type: string,
    readonly session: string,
    ownEpoch: number | null,
    ownSeq: number | null,
    readonly epoch: number,
    readonly seq: number,
  ) {
    this.ownEpoch = ownEpoch ?? undefined;
    this.ownSeq = ownSeq ?? undefined;
    this.sequenced = ownSeq !== null;
  }

  get event(): AepEvent {
    return (this.parsed ??= JSON.parse(this.json) as AepEvent);
  }
}

const DEFAULT_PAGE_SIZE = 1_000;

/** Durable, deduplicating, per-session-ordered event history over the `events` table. */
export class EventStore {
  private maxPerSession: number;
  private readonly pageSize: number;
  private pending: PendingGroup[] = [];
  private scheduled = false;

  private readonly insertStmt: Statement;
  private readonly latestKeyStmt: Statement;
  private readonly countStmt: Statement;
  private readonly boundaryStmt: Statement;
  private readonly trimStmt: Statement;
  private readonly trimmedStmt: Statement;
  private readonly replayStmt: Statement;
  private readonly windowEndStmt: Statement;
  private readonly filteredStmts = new Map<string, Statement>();
  private readonly earliestStmt: Statement;
  private readonly trimmedThroughStmt: Statement;
  private readonly heldStmt: Statement;
  private readonly countsStmt: Statement;
  private readonly overStmt: Statement;
  private readonly writeBatch: (groups: readonly PendingGroup[]) => boolean[][];
  private readonly trimAll: (max: number) => void;

  constructor(
    private readonly db: Database,
    options: EventStoreOptions,
  ) {
    this.maxPerSession = checkRetention(options.maxEventsPerSession);
    this.pageSize = Math.max(1, Math.trunc(options.replayPageSize ?? DEFAULT_PAGE_SIZE));

    this.insertStmt = db.prepare(
      `INSERT INTO events (source, id, type, session, agent, epoch, seq, severity, time, cause, ord_epoch, ord_seq, ord_tie, json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (source, id) DO NOTHING`,
    );
    this.latestKeyStmt = db.prepare(
      `SELECT ord_epoch, ord_seq, ord_tie FROM events WHERE session = ?
       ORDER BY ord_epoch DESC, ord_seq DESC, ord_tie DESC LIMIT 1`,
    );
    this.countStmt = db.prepare(
      `INSERT INTO event_sessions (session, held) VALUES (?, ?)
       ON CONFLICT (session) DO UPDATE SET held = held + excluded.held RETURNING held`,
    );
    this.boundaryStmt = db.prepare(
      `SELECT ord_epoch, ord_seq, ord_tie, n FROM events WHERE session = ?
       ORDER BY ord_epoch, ord_seq, ord_tie, n LIMIT 1 OFFSET ?`,
    );
    this.trimStmt = db.prepare(
      `DELETE FROM events WHERE session = ? AND (ord_epoch, ord_seq, ord_tie, n) <= (?, ?, ?, ?)`,
    );
    // Keeps the highest trimmed position: a trimmed backfill row must not move it backwards.
    this.trimmedStmt = db.prepare(
      `UPDATE event_sessions SET
         held = held - :removed,
         trimmed_epoch = CASE WHEN trimmed_epoch IS NULL OR (:epoch, :seq) > (trimmed_epoch, trimmed_seq) THEN :epoch ELSE trimmed_epoch END,
         trimmed_seq = CASE WHEN trimmed_epoch IS NULL OR (:epoch, :seq) > (trimmed_epoch, trimmed_seq) THEN :seq ELSE trimmed_seq END
       WHERE session = :session`,
    );
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
    this.overStmt = db.prepare(`SELECT session, held FROM event_sessions WHERE held > ?`);

    this.writeBatch = db.transaction((groups: readonly PendingGroup[]) =>
      this.insertGroups(groups),
    );
    this.trimAll = db.transaction((max: number) => {
      for (const row of this.overStmt.all(max) as { session: string; held: number }[])
        this.trim(row.session, row.held - max);
    });
  }

  /**
   * Admits events durably. Every call made in one event-loop turn shares one transaction; the
   * promise resolves after COMMIT with one flag per item: true = newly stored, false = duplicate
   * (source, id), including a repeat earlier in the same batch. Agent-scoped events (agent.*) are
   * never stored and report true. A failing call rejects alone: the others of its turn still commit.
   */
  admit(items: readonly AdmitItem[]): Promise<boolean[]> {
    const problem = findInvalid(items);
    if (problem !== null) return Promise.reject(new StoreError('invalid-input', problem));
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<boolean[]>((resolve, reject) => {
      this.pending.push({ items, resolve, reject });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  /** Commits everything admitted so far now instead of at the end of the turn (used on shutdown). */
  flush(): void {
    this.scheduled = false;
    const groups = this.pending;
    this.pending = [];
    if (groups.length === 0) return;
    let results: boolean[][];
    try {
      results = this.writeBatch(groups);
    } catch (error) {
      if (groups.length === 1) {
        groups[0].reject(this.failure(error));
        return;
      }
      // One bad admit must not fail the others of its turn: the batch was rolled back whole, so
      // each admit is retried in a transaction of its own (the hot path pays nothing for this).
      for (const group of groups) this.commitAlone(group);
      return;
    }
    groups.forEach((group, i) => group.resolve(results[i]));
  }

  /**
   * Admits events synchronously inside the caller's transaction (or one of its own): for writes
   * that must commit together with the events that report them (a steering decision and its
   * ack). Same flags as `admit`; throws instead of rejecting.
   */
  admitNow(items: readonly AdmitItem[]): boolean[] {
    const problem = findInvalid(items);
    if (problem !== null) throw new StoreError('invalid-input', problem);
    if (items.length === 0) return [];
    const group: PendingGroup = { items, resolve: () => undefined, reject: () => undefined };
    try {
      return this.db.inTransaction ? this.insertGroups([group])[0] : this.writeBatch([group])[0];
    } catch (error) {
      throw this.failure(error);
    }
  }

  private commitAlone(group: PendingGroup): void {
    let result: boolean[];
    try {
      result = this.writeBatch([group])[0];
    } catch (error) {
      group.reject(this.failure(error));
      return;
    }
    group.resolve(result);
  }

  private failure(error: unknown): unknown {
    return isStoreError(error) ? error : (toStoreError(error, this.db.name) ?? error);
  }

  /**
   * The session's held events strictly after `after` (all of them for null), in session order,
   * read lazily in pages. Seq-less events anchored at `after` itself are included (at-least-once).
   */
  *replay(session: string, after: StorePosition | null): IterableIterator<StoredEvent> {
    for (const page of this.replayPages(session, after)) yield* page;
  }

  /**
   * The same replay as `replay`, one array per page of bounded work, so the caller can yield to
   * the event loop between pages. With `sql` (a pushed-down filter, `replaySql`), only matching
   * rows are read: each page scans at most a window of one page size of the session's rows, so a
   * filter that matches little still returns (possibly empty) pages at a steady pace.
   */
  *replayPages(
    session: string,
    after: StorePosition | null,
    sql: ReplaySql = NO_REPLAY_SQL,
  ): IterableIterator<StoredEvent[]> {
    // (epoch, seq, 0, max n) excludes every sequenced row at `after`; (-1, …) starts before any row.
    let key: [number, number, number, number] =
      after === null ? [-1, 0, 0, 0] : [after.epoch, after.seq, 0, Number.MAX_SAFE_INTEGER];
    const toPage = (rows: ReplayRow[]): StoredEvent[] =>
      rows.map(
        ([epoch, seq, , , ownSeq, json, type, ownEpoch]) =>
          new StoredRow(json, type, session, ownEpoch, ownSeq, epoch, seq),
      );
    if (sql.where === '') {
      for (;;) {
        const rows = this.replayStmt.all(session, ...key, this.pageSize) as ReplayRow[];
        yield toPage(rows);
        if (rows.length < this.pageSize) return;
        const [epoch, seq, tie, n] = rows[rows.length - 1];
        key = [epoch, seq, tie, n];
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

  /** The earliest retained position of the session, or null when it holds nothing. */
  earliest(session: string): StorePosition | null {
    const row = this.earliestStmt.get(session) as
      { ord_epoch: number; ord_seq: number } | undefined;
    return row === undefined ? null : { epoch: row.ord_epoch, seq: row.ord_seq };
  }

  /**
   * The highest position retention has deleted from the session, or null if nothing was trimmed.
   * A resume position below it predates retained history (replay-exhausted); above it, a gap is just a gap.
   */
  trimmedThrough(session: string): StorePosition | null {
    const row = this.trimmedThroughStmt.get(session) as
      { trimmed_epoch: number | null; trimmed_seq: number | null } | undefined;
    return row === undefined || row.trimmed_epoch === null || row.trimmed_seq === null
      ? null
      : { epoch: row.trimmed_epoch, seq: row.trimmed_seq };
  }

  /** Every session that currently holds at least one event (for replay-all), sorted. */
  heldSessions(): string[] {
    return (this.heldStmt.all() as { session: string }[]).map((row) => row.session);
  }

  /** How many events are held and in how many sessions. */
  counts(): { events: number; sessions: number } {
    const row = this.countsStmt.get() as { events: number; sessions: number };
    return { events: row.events, sessions: row.sessions };
  }

  /** The current retention limit (events per session). */
  get maxEventsPerSession(): number {
    return this.maxPerSession;
  }

  /** Changes retention and trims every session above the new limit at once. Throws on a non-positive or fractional limit. */
  setRetention(maxEventsPerSession: number): void {
    this.maxPerSession = checkRetention(maxEventsPerSession);
    this.trimAll(this.maxPerSession);
  }

  private insertGroups(groups: readonly PendingGroup[]): boolean[][] {
    const added = new Map<string, number>();
    const results = groups.map((group) =>
      group.items.map(({ event, json }) => {
        if (isAgentScoped(event.type)) return true;
        const session = event.session as string;
        let ordEpoch: number;
        let ordSeq: number;
        let ordTie = 0;
        if (event.seq === undefined) {
          const latest = this.latestKeyStmt.get(session) as Omit<KeyRow, 'n'> | undefined;
          ordEpoch = latest?.ord_epoch ?? 0;
          ordSeq = latest?.ord_seq ?? 0;
          ordTie = (latest?.ord_tie ?? 0) + 1;
        } else {
          ordEpoch = event.epoch ?? 0;
          ordSeq = event.seq;
        }
        const info = this.insertStmt.run(
          event.source,
          event.id,
          event.type,
          session,
          event.agent,
          event.epoch ?? null,
          event.seq ?? null,
          event.severity ?? null,
          event.time,
          typeof event.cause === 'string' ? event.cause : null,
          ordEpoch,
          ordSeq,
          ordTie,
          json,
        );
        if (info.changes === 0) return false;
        added.set(session, (added.get(session) ?? 0) + 1);
        return true;
      }),
    );
    for (const [session, count] of added) {
      const { held } = this.countStmt.get(session, count) as { held: number };
      if (held > this.maxPerSession) this.trim(session, held - this.maxPerSession);
    }
    return results;
  }

  /** Deletes the session's `excess` oldest rows with two index range operations. */
  private trim(session: string, excess: number): void {
    const boundary = this.boundaryStmt.get(session, excess - 1) as KeyRow | undefined;
    if (boundary === undefined) return;
    const { changes } = this.trimStmt.run(
      session,
      boundary.ord_epoch,
      boundary.ord_seq,
      boundary.ord_tie,
      boundary.n,
    );
    this.trimmedStmt.run({
      removed: changes,
      epoch: boundary.ord_epoch,
      seq: boundary.ord_seq,
      session,
    });
  }
}

function checkRetention(value: number): number {
  if (!Number.isSafeInteger(value) || value < 1) {
    throw new StoreError(
      'invalid-input',
      `maxEventsPerSession must be a positive integer, got ${String(value)}`,
    );
  }
  return value;
}

const isCount = (value: unknown): boolean =>
  typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
const isText = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/** Checks what the store relies on (the relay validates the full envelope first); null when fine. */
function findInvalid(items: readonly AdmitItem[]): string | null {
  if (!Array.isArray(items)) return 'admit expects an array of { event, json }';
  for (let i = 0; i < items.length; i++) {
    const item = items[i] as Partial<AdmitItem> | null;
    const event = item?.event as Record<string, unknown> | undefined;
    const at = `admit item ${i}`;
    if (typeof event !== 'object' || event === null) return `${at}: missing event object`;
    if (!isText(item?.json)) return `${at}: json must be the event's non-empty JSON text`;
    for (const field of ['source', 'id', 'type', 'agent', 'time'] as const) {
      if (!isText(event[field])) return `${at}: '${field}' must be a non-empty string`;
    }
    if (isAgentScoped(event.type as string)) continue;
    if (!isText(event.session))
      return `${at}: session-scoped event '${String(event.type)}' has no session`;
    if (event.seq !== undefined && !isCount(event.seq))
      return `${at}: seq must be a non-negative integer`;
    if (event.epoch !== undefined && !isCount(event.epoch))
      return `${at}: epoch must be a non-negative integer`;
  }
  return null;
}
