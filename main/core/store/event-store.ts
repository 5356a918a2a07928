/**
 * The relay's durable event history: group-committed admission, paged replay, per-session retention.
 * Ordering columns and the placement of seq-less events are documented in migrations/0010-events.ts.
 */
import type { Database, Statement } from 'better-sqlite3';
import { isAgentScoped, type AepEvent } from '../../../common/aep/envelope';
import { EventReplay, type HeldReplay, type StoredEvent, type StorePosition } from './event-replay';
import type { ReplaySql } from './replay-filter';
import { StoreError, isStoreError, toStoreError } from './store-error';
import { turnCommitOf, type TurnCommit, type TurnWriter } from './turn-commit';

/** One event to admit: the parsed envelope plus its verbatim JSON text (stored and replayed as is). */
export interface AdmitItem {
  readonly event: AepEvent;
  readonly json: string;
}

export type { HeldReplay, StoredEvent, StorePosition } from './event-replay';

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

/** An ordering key (ord_epoch, ord_seq, ord_tie). */
type OrdKey = readonly [number, number, number];

const keyBelow = (a: OrdKey, b: OrdKey): boolean =>
  a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] < b[2];

/** Sessions whose highest held key is remembered (a miss costs one index lookup). */
const MAX_REMEMBERED_KEYS = 4_096;

/** Durable, deduplicating, per-session-ordered event history over the `events` table. */
export class EventStore {
  private maxPerSession: number;
  private readonly reader: EventReplay;
  private pending: PendingGroup[] = [];
  /** The admits written in the current turn's transaction, and their flags once written. */
  private inFlight: { groups: PendingGroup[]; results: boolean[][] } | null = null;
  private readonly turn: TurnCommit;
  private readonly writer: TurnWriter = {
    write: () => this.writeTurn(),
    settle: () => this.settleTurn(),
    recover: (error) => this.recoverTurn(error),
  };

  private readonly insertStmt: Statement;
  private readonly latestKeyStmt: Statement;
  private readonly countStmt: Statement;
  private readonly boundaryStmt: Statement;
  private readonly trimStmt: Statement;
  private readonly trimmedStmt: Statement;
  private readonly overStmt: Statement;
  private readonly lastSeqStmt: Statement;
  /**
   * The highest ordering key stored per session, for the `disordered` flag (migration 0120): an
   * admit below it marks the session. A value may be stale only upwards (a row deleted by an age
   * sweep, a rolled-back turn), which can only mark a session that was in order: never the reverse.
   */
  private readonly highestKey = new Map<string, OrdKey>();
  private readonly writeBatch: (groups: readonly PendingGroup[]) => boolean[][];
  private readonly trimAll: (max: number) => void;

  constructor(
    private readonly db: Database,
    options: EventStoreOptions,
  ) {
    this.maxPerSession = checkRetention(options.maxEventsPerSession);
    this.reader = new EventReplay(db, { pageSize: options.replayPageSize });
    this.turn = turnCommitOf(db);

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
      `INSERT INTO event_sessions (session, held, disordered) VALUES (?, ?, ?)
       ON CONFLICT (session) DO UPDATE SET held = held + excluded.held,
         disordered = MAX(disordered, excluded.disordered) RETURNING held`,
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
    this.overStmt = db.prepare(`SELECT session, held FROM event_sessions WHERE held > ?`);
    this.lastSeqStmt = db.prepare(
      'SELECT seq FROM events WHERE session = ? AND ord_epoch = ? AND source = ? AND seq IS NOT NULL ORDER BY ord_seq DESC LIMIT 1',
    );
    this.writeBatch = db.transaction((groups: readonly PendingGroup[]) =>
      this.insertGroups(groups),
    );
    this.trimAll = db.transaction((max: number) => {
      for (const row of this.overStmt.all(max) as { session: string; held: number }[])
        this.trim(row.session, row.held - max);
    });
  }

  /**
   * Admits events durably. Every call made in one event-loop turn shares one transaction (with the
   * other write-behind repositories of the connection, `turn-commit.ts`); the promise resolves
   * after COMMIT with one flag per item: true = newly stored, false = duplicate (source, id),
   * including a repeat earlier in the same batch. Agent-scoped events (agent.*) are never stored
   * and report true. A failing call rejects alone: the others of its turn still commit.
   */
  admit(items: readonly AdmitItem[]): Promise<boolean[]> {
    const problem = findInvalid(items);
    if (problem !== null) return Promise.reject(new StoreError('invalid-input', problem));
    if (items.length === 0) return Promise.resolve([]);
    return new Promise<boolean[]>((resolve, reject) => {
      this.pending.push({ items, resolve, reject });
      this.turn.schedule(this.writer);
    });
  }

  /** The highest seq stored for one emitter's session in one epoch (0 when none): where it resumes. */
  lastSeq(session: string, epoch: number, source: string): number {
    return (this.lastSeqStmt.get(session, epoch, source) as { seq: number } | undefined)?.seq ?? 0;
  }

  /** Commits everything admitted so far now instead of at the end of the turn (used on shutdown). */
  flush(): void {
    this.turn.commit();
  }

  /** Inside the turn's transaction: this turn's admits, written as one batch (kept for a retry). */
  private writeTurn(): void {
    if (this.inFlight === null) {
      this.inFlight = { groups: this.pending, results: [] };
      this.pending = [];
    }
    this.inFlight.results = this.insertGroups(this.inFlight.groups);
  }

  /** After the turn's COMMIT: every admit of it hears its flags. */
  private settleTurn(): void {
    const flight = this.inFlight;
    this.inFlight = null;
    if (flight !== null) flight.groups.forEach((group, i) => group.resolve(flight.results[i]));
  }

  /**
   * The batch failed even in a transaction of its own: one bad admit must not fail the others of
   * its turn, so each is retried in a transaction of its own (the hot path pays nothing for this).
   */
  private recoverTurn(error: unknown): void {
    // The failed batch may have raised remembered keys of rows that are not there.
    this.highestKey.clear();
    const groups = this.inFlight?.groups ?? this.takePending();
    this.inFlight = null;
    if (groups.length === 1) {
      groups[0].reject(this.failure(error));
      return;
    }
    for (const group of groups) {
      let result: boolean[];
      try {
        result = this.writeBatch([group])[0];
      } catch (alone) {
        group.reject(this.failure(alone));
        continue;
      }
      group.resolve(result);
    }
  }

  private takePending(): PendingGroup[] {
    const groups = this.pending;
    this.pending = [];
    return groups;
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
  replayPages(
    session: string,
    after: StorePosition | null,
    sql?: ReplaySql,
  ): IterableIterator<StoredEvent[]> {
    return this.reader.replayPages(session, after, sql);
  }

  /**
   * The position to replay after so that the session's last `count` events (and every row of the
   * first position among them) come back; null when they are the whole retained history.
   */
  tailStart(session: string, count: number): StorePosition | null {
    return this.reader.tailStart(session, count);
  }

  /** The earliest retained position of the session, or null when it holds nothing. */
  earliest(session: string): StorePosition | null {
    return this.reader.earliest(session);
  }

  /**
   * The highest position retention has deleted from the session, or null if nothing was trimmed.
   * A resume position below it predates retained history (replay-exhausted); above it, a gap is just a gap.
   */
  trimmedThrough(session: string): StorePosition | null {
    return this.reader.trimmedThrough(session);
  }

  /**
   * Replay-all in one pass: every held row of the sessions whose rows are in session order when
   * read by row number (nearly all: migration 0120), in that order, up to the highest row stored
   * when called, a page at a time; and the sessions left out, to be replayed with `replayPages`.
   * Each session's rows come in its session order; the sessions are interleaved as they arrived.
   */
  replayHeld(): HeldReplay {
    return this.reader.replayHeld();
  }

  /** Every session that currently holds at least one event (for replay-all), sorted. */
  heldSessions(): string[] {
    return this.reader.heldSessions();
  }

  /** How many events are held and in how many sessions. */
  counts(): { events: number; sessions: number } {
    return this.reader.counts();
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

  /** The session's highest stored key (remembered; read from the index on a miss), or null. */
  private highestOf(session: string): OrdKey | null {
    const known = this.highestKey.get(session);
    if (known !== undefined) return known;
    const latest = this.latestKeyStmt.get(session) as Omit<KeyRow, 'n'> | undefined;
    return latest === undefined ? null : this.remember(session, [latest.ord_epoch, latest.ord_seq, latest.ord_tie]);
  }

  /** Sets the remembered key; a new session past the bound evicts the one remembered first. */
  private remember(session: string, key: OrdKey): OrdKey {
    if (this.highestKey.size >= MAX_REMEMBERED_KEYS && !this.highestKey.has(session))
      this.highestKey.delete(this.highestKey.keys().next().value as string);
    this.highestKey.set(session, key);
    return key;
  }

  /** Writes the groups' events and each session's count of held events, trimming a session past retention. */
  private insertGroups(groups: readonly PendingGroup[]): boolean[][] {
    const added = new Map<string, number>();
    const disordered = new Set<string>();
    const results = groups.map((group) =>
      group.items.map(({ event, json }) => {
        if (isAgentScoped(event.type)) return true;
        const session = event.session as string;
        let highest: OrdKey | null;
        let ordEpoch: number;
        let ordSeq: number;
        let ordTie = 0;
        if (event.seq === undefined) {
          // Anchored right after the latest key held now (read, not remembered: the anchor is a
          // fact of the record), so never below it.
          const latest = this.latestKeyStmt.get(session) as Omit<KeyRow, 'n'> | undefined;
          highest = latest === undefined ? null : [latest.ord_epoch, latest.ord_seq, latest.ord_tie];
          ordEpoch = latest?.ord_epoch ?? 0;
          ordSeq = latest?.ord_seq ?? 0;
          ordTie = (latest?.ord_tie ?? 0) + 1;
        } else {
          highest = this.highestOf(session);
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
        const key: OrdKey = [ordEpoch, ordSeq, ordTie];
        if (highest === null || !keyBelow(key, highest)) this.remember(session, key);
        else disordered.add(session);
        return true;
      }),
    );
    for (const [session, count] of added) {
      const held = (this.countStmt.get(session, count, disordered.has(session) ? 1 : 0) as { held: number }).held;
      if (held > this.maxPerSession) this.trim(session, held - this.maxPerSession);
    }
    return results;
  }

  /** Deletes the session's `excess` oldest rows with two index range operations; returns how many went. */
  private trim(session: string, excess: number): number {
    const boundary = this.boundaryStmt.get(session, excess - 1) as KeyRow | undefined;
    if (boundary === undefined) return 0;
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
    return changes;
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
