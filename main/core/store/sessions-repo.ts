/**
 * The sessions table: vendor sessions seen through their hooks, with state and opt-ins, and the
 * sessions of other AEP emitters seen at admission (vendor null, agent from the event).
 */
import type { Database, Statement, Transaction } from 'better-sqlite3';
import type { SessionState, SessionSummary } from '../../../common/sessions';
import { isVendorId, type VendorId } from '../../../common/vendors';
import { turnCommitOf, type TurnCommit, type TurnWriter } from './turn-commit';

/** What one hook call tells us about its session. */
export interface SessionTouch {
  readonly source: string;
  readonly session: string;
  readonly agent: string;
  readonly vendor: VendorId;
  readonly cwd: string | null;
  readonly hook: string;
  readonly instructOptIn: boolean;
  readonly permissionsOptIn: boolean;
  readonly nowMs: number;
}

/** One admitted event's facts about an emitter session (a third-party AEP emitter, not a hook). */
export interface EmitterSighting {
  readonly source: string;
  readonly session: string;
  readonly agent: string;
  /** The event was the session's `session.ended`. */
  readonly ended: boolean;
  readonly nowMs: number;
}

/** A session row as the core uses it (times in epoch ms). */
export interface SessionRow {
  readonly source: string;
  readonly session: string;
  readonly agent: string;
  readonly vendor: VendorId | null;
  readonly cwd: string | null;
  readonly state: SessionState;
  readonly firstSeenMs: number;
  readonly lastSeenMs: number;
  readonly lastHook: string | null;
  readonly instructOptIn: boolean;
  readonly permissionsOptIn: boolean;
  readonly pendingAttention: number;
}

/** The outcome of `touch`: the row before (null when new) and after. */
export interface TouchResult {
  readonly before: SessionRow | null;
  readonly after: SessionRow;
}

interface RawRow {
  source: string;
  session: string;
  agent: string;
  vendor: string | null;
  cwd: string | null;
  state: string;
  first_seen_ms: number;
  last_seen_ms: number;
  last_hook: string | null;
  instruct_opt_in: number;
  permissions_opt_in: number;
  pending_attention: number;
  event_count?: number | null;
  /** Set when the session was launched by the companion (main/core/launched). */
  launched_cwd?: string | null;
}

const toRow = (r: RawRow): SessionRow => ({
  source: r.source,
  session: r.session,
  agent: r.agent,
  vendor: isVendorId(r.vendor) ? r.vendor : null,
  cwd: r.cwd,
  state: r.state === 'ended' || r.state === 'idle' ? r.state : 'active',
  firstSeenMs: r.first_seen_ms,
  lastSeenMs: r.last_seen_ms,
  lastHook: r.last_hook,
  instructOptIn: r.instruct_opt_in === 1,
  permissionsOptIn: r.permissions_opt_in === 1,
  pendingAttention: r.pending_attention,
});

/** The row with a new last-seen time and hook (every field named: one object shape for all rows). */
const seenAgain = (r: SessionRow, lastSeenMs: number, lastHook: string): SessionRow => ({
  source: r.source,
  session: r.session,
  agent: r.agent,
  vendor: r.vendor,
  cwd: r.cwd,
  state: r.state,
  firstSeenMs: r.firstSeenMs,
  lastSeenMs,
  lastHook,
  instructOptIn: r.instructOptIn,
  permissionsOptIn: r.permissionsOptIn,
  pendingAttention: r.pendingAttention,
});

const MAX_CACHED = 10_000;
/** Listed unless another source owns the session (registry, 0160): one session seen twice is one row, the owner's. */
const NOT_MERGED = 'NOT EXISTS (SELECT 1 FROM session_registry r WHERE r.session = s.session AND r.owner = 1 AND r.source != s.source)';
const keyOf = (source: string, session: string): string => `${source}\u0000${session}`;

/** Repository of the `sessions` table; statements are prepared once. */
export class SessionsRepo {
  private readonly getStmt: Statement<[string, string]>;
  private readonly byVendorStmt: Statement<[string, string]>;
  private readonly upsertStmt: Statement<Record<string, unknown>>;
  private readonly stateStmt: Statement<[string, string, string]>;
  private readonly seenStmt: Statement<[number, string, string, string]>;
  private readonly writeSeen: Transaction<(rows: readonly SessionRow[], emitters: readonly EmitterSighting[]) => void>;
  /** Recently touched rows (what the database holds once `dirty` is flushed). */
  private readonly cache = new Map<string, SessionRow>();
  private readonly dirty = new Map<string, SessionRow>();
  /** The write-behind rides the connection's group commit: the session rows of a turn commit with its events. */
  private readonly turn: TurnCommit;
  private inFlight: { rows: SessionRow[]; emitters: EmitterSighting[] } | null = null;
  private readonly writer: TurnWriter = {
    write: () => this.writeTurn(),
    settle: () => this.settleTurn(),
    recover: () => this.recoverTurn(),
  };
  /** Emitter sessions sighted since the last flush, coalesced per (source, session). */
  private readonly sighted = new Map<string, EmitterSighting>();
  private readonly emitterStmt: Statement<Record<string, unknown>>;
  private readonly attentionStmt: Statement<[number, string, string]>;
  private readonly listStmt: Statement<[]>;
  private readonly liveStmt: Statement<[]>;
  private readonly staleStmt: Statement<[number]>;
  private readonly reinsertStmt: Statement<Record<string, unknown>>;
  private readonly firstPageStmt: Statement<[number]>;
  private readonly pageStmt: Statement<[number, string, string, number]>;

  constructor(private readonly db: Database) {
    this.turn = turnCommitOf(db);
    this.getStmt = db.prepare('SELECT * FROM sessions WHERE source = ? AND session = ?');
    this.byVendorStmt = db.prepare('SELECT * FROM sessions WHERE vendor = ? AND session = ? ORDER BY last_seen_ms DESC LIMIT 1');
    this.upsertStmt = db.prepare(`
      INSERT INTO sessions (source, session, agent, vendor, cwd, state, first_seen_ms, last_seen_ms, last_hook,
                            instruct_opt_in, permissions_opt_in, pending_attention)
      VALUES (@source, @session, @agent, @vendor, @cwd, 'active', @now, @now, @hook, @instruct, @permissions, 0)
      ON CONFLICT (source, session) DO UPDATE SET
        cwd = COALESCE(excluded.cwd, sessions.cwd),
        state = CASE WHEN sessions.state = 'ended' THEN 'ended' ELSE 'active' END,
        last_seen_ms = MAX(sessions.last_seen_ms, excluded.last_seen_ms),
        last_hook = excluded.last_hook,
        instruct_opt_in = MAX(sessions.instruct_opt_in, excluded.instruct_opt_in),
        permissions_opt_in = MAX(sessions.permissions_opt_in, excluded.permissions_opt_in)`);
    this.emitterStmt = db.prepare(`
      INSERT INTO sessions (source, session, agent, vendor, cwd, state, first_seen_ms, last_seen_ms, last_hook,
                            instruct_opt_in, permissions_opt_in, pending_attention)
      VALUES (@source, @session, @agent, NULL, NULL, @state, @now, @now, NULL, 0, 0, 0)
      ON CONFLICT (source, session) DO UPDATE SET
        state = CASE WHEN excluded.state = 'ended' OR sessions.state = 'ended' THEN 'ended' ELSE 'active' END,
        last_seen_ms = MAX(sessions.last_seen_ms, excluded.last_seen_ms)`);
    this.stateStmt = db.prepare('UPDATE sessions SET state = ? WHERE source = ? AND session = ?');
    this.seenStmt = db.prepare('UPDATE sessions SET last_seen_ms = MAX(last_seen_ms, ?), last_hook = ? WHERE source = ? AND session = ?');
    this.reinsertStmt = db.prepare(`
      INSERT OR IGNORE INTO sessions (source, session, agent, vendor, cwd, state, first_seen_ms, last_seen_ms, last_hook,
                                      instruct_opt_in, permissions_opt_in, pending_attention)
      VALUES (@source, @session, @agent, @vendor, @cwd, @state, @first, @last, @hook, @instruct, @permissions, @attention)`);
    this.writeSeen = db.transaction((rows: readonly SessionRow[], emitters: readonly EmitterSighting[]) => this.writeRows(rows, emitters));
    this.attentionStmt = db.prepare(
      'UPDATE sessions SET pending_attention = MAX(0, pending_attention + ?) WHERE source = ? AND session = ?',
    );
    this.listStmt = db.prepare(`
      SELECT s.*, e.held AS event_count, l.cwd AS launched_cwd FROM sessions s
      LEFT JOIN event_sessions e ON e.session = s.session
      LEFT JOIN launched_sessions l ON l.source = s.source AND l.session = s.session
      WHERE ${NOT_MERGED}
      ORDER BY s.last_seen_ms DESC`);
    const pageSql = (where: string): string => `
      SELECT s.*, e.held AS event_count, l.cwd AS launched_cwd FROM sessions s
      LEFT JOIN event_sessions e ON e.session = s.session
      LEFT JOIN launched_sessions l ON l.source = s.source AND l.session = s.session
      WHERE ${NOT_MERGED} ${where === '' ? '' : `AND ${where}`}
      ORDER BY s.last_seen_ms DESC, s.source DESC, s.session DESC LIMIT ?`;
    this.firstPageStmt = db.prepare(pageSql(''));
    this.pageStmt = db.prepare(pageSql('(s.last_seen_ms, s.source, s.session) < (?, ?, ?)'));
    this.liveStmt = db.prepare("SELECT * FROM sessions WHERE state != 'ended' ORDER BY last_seen_ms");
    this.staleStmt = db.prepare("SELECT * FROM sessions WHERE state = 'active' AND last_seen_ms <= ? ORDER BY last_seen_ms");
  }

  /**
   * Records one hook call: creates the session or refreshes it (an ended session stays ended: a
   * late hook after the end must not resurrect it). Opt-ins are sticky for the session's life: a
   * vendor may install one moment without the opt-in, which must not withdraw the verb mid-session.
   * A hook that changes nothing but the last-seen time and moment is written behind, coalesced
   * per event-loop turn, so the hook path does not pay a commit per call; every read flushes first.
   */
  touch(t: SessionTouch): TouchResult {
    const key = keyOf(t.source, t.session);
    const before = this.cache.get(key) ?? this.get(t.source, t.session);
    if (
      before !== null &&
      before.state === 'active' &&
      (t.cwd === null || t.cwd === before.cwd) &&
      (!t.instructOptIn || before.instructOptIn) &&
      (!t.permissionsOptIn || before.permissionsOptIn)
    ) {
      const after = seenAgain(before, Math.max(before.lastSeenMs, t.nowMs), t.hook);
      this.remember(key, after);
      this.dirty.set(key, after);
      this.scheduleFlush();
      return { before, after };
    }
    this.dirty.delete(key);
    this.upsertStmt.run({
      source: t.source,
      session: t.session,
      agent: t.agent,
      vendor: t.vendor,
      cwd: t.cwd,
      now: t.nowMs,
      hook: t.hook,
      instruct: t.instructOptIn ? 1 : 0,
      permissions: t.permissionsOptIn ? 1 : 0,
    });
    const after = toRow(this.getStmt.get(t.source, t.session) as RawRow);
    this.remember(key, after);
    return { before, after };
  }

  /**
   * Records a session of another AEP emitter seen in an admitted event: created with vendor null on
   * first sight, refreshed after, ended by its `session.ended` (and never revived by a later event).
   * Written behind, coalesced per event-loop turn like `touch`, so admission pays no commit per event.
   */
  sightedEmitter(e: EmitterSighting): void {
    const key = keyOf(e.source, e.session);
    const before = this.sighted.get(key);
    this.sighted.set(key, before === undefined ? e : { ...e, ended: e.ended || before.ended, nowMs: Math.max(e.nowMs, before.nowMs) });
    this.cache.delete(key);
    this.scheduleFlush();
  }

  /** Writes the coalesced updates now (reads call it; the owner calls it before closing the database). */
  flush(): void {
    if (this.dirty.size === 0 && this.sighted.size === 0) return;
    const rows = [...this.dirty.values()];
    const emitters = [...this.sighted.values()];
    this.dirty.clear();
    this.sighted.clear();
    try {
      this.writeSeen.immediate(rows, emitters);
    } catch (error) {
      // Nothing is lost: the rows wait for the next flush.
      this.requeue(rows, emitters);
      throw error;
    }
  }

  /** One session, or null: from the rows kept in memory when it is there, else as `get`. */
  cached(source: string, session: string): SessionRow | null {
    return this.cache.get(keyOf(source, session)) ?? this.get(source, session);
  }

  /** One session, or null. */
  get(source: string, session: string): SessionRow | null {
    this.flush();
    const r = this.getStmt.get(source, session) as RawRow | undefined;
    return r ? toRow(r) : null;
  }

  /** The most recently seen session of `vendor` with this id, or null. */
  findByVendor(vendor: VendorId, session: string): SessionRow | null {
    this.flush();
    const r = this.byVendorStmt.get(vendor, session) as RawRow | undefined;
    return r ? toRow(r) : null;
  }

  /** Sets a session's state. */
  setState(source: string, session: string, state: SessionState): void {
    this.flush();
    this.stateStmt.run(state, source, session);
    this.cache.delete(keyOf(source, session));
  }

  /** Adds `delta` (±1) to the open attention count, never below zero. */
  adjustPendingAttention(source: string, session: string, delta: number): void {
    this.flush();
    this.attentionStmt.run(delta, source, session);
    this.cache.delete(keyOf(source, session));
  }

  /** Sessions that have not ended, oldest activity first. */
  live(): SessionRow[] {
    this.flush();
    return (this.liveStmt.all() as RawRow[]).map(toRow);
  }

  /** Active sessions whose last hook is at or before `beforeMs`. */
  staleActive(beforeMs: number): SessionRow[] {
    this.flush();
    return (this.staleStmt.all(beforeMs) as RawRow[]).map(toRow);
  }

  /** Every session as the console sees it, most recent first. */
  list(): SessionSummary[] {
    this.flush();
    return (this.listStmt.all() as RawRow[]).map(toSummary);
  }

  /**
   * One keyset page of sessions, most recent first (index `sessions_seen`, no full scan): `after`
   * is the previous page's `next`; `next` is null on the last page.
   */
  page(limit: number, after: SessionsCursor | null): { sessions: SessionSummary[]; next: SessionsCursor | null } {
    this.flush();
    const rows = (
      after === null
        ? this.firstPageStmt.all(limit + 1)
        : this.pageStmt.all(after.lastSeenMs, after.source, after.session, limit + 1)
    ) as RawRow[];
    const kept = rows.length > limit ? rows.slice(0, limit) : rows;
    const last = kept[kept.length - 1];
    return {
      sessions: kept.map(toSummary),
      next:
        rows.length > limit && last !== undefined
          ? { lastSeenMs: last.last_seen_ms, source: last.source, session: last.session }
          : null,
    };
  }

  private remember(key: string, row: SessionRow): void {
    this.cache.delete(key);
    this.cache.set(key, row);
    // Bounded: the least recently touched rows fall out (they are re-read on their next hook).
    if (this.cache.size > MAX_CACHED) {
      const oldest = this.cache.keys().next().value as string;
      if (!this.dirty.has(oldest)) this.cache.delete(oldest);
    }
  }

  /** The write-behind statements (inside a transaction: `writeSeen`, or the turn's). */
  private writeRows(rows: readonly SessionRow[], emitters: readonly EmitterSighting[]): void {
    for (const r of rows) {
      // A row retention removed meanwhile comes back whole: the session is alive again.
      if (this.seenStmt.run(r.lastSeenMs, r.lastHook ?? '', r.source, r.session).changes === 0)
        this.reinsertStmt.run({
          source: r.source, session: r.session, agent: r.agent, vendor: r.vendor, cwd: r.cwd, state: r.state,
          first: r.firstSeenMs, last: r.lastSeenMs, hook: r.lastHook, instruct: r.instructOptIn ? 1 : 0,
          permissions: r.permissionsOptIn ? 1 : 0, attention: r.pendingAttention,
        });
    }
    for (const e of emitters) {
      this.emitterStmt.run({ source: e.source, session: e.session, agent: e.agent, state: e.ended ? 'ended' : 'active', now: e.nowMs });
    }
  }

  private scheduleFlush(): void {
    this.turn.schedule(this.writer);
  }

  /** Inside the turn's transaction: the coalesced rows (kept for a retry until settled). */
  private writeTurn(): void {
    if (this.inFlight === null) {
      // Both sizes read every time: a read skipped on the usual path has no type feedback, and the
      // rare turn that reaches it would throw the optimized code away (V8 deoptimizes there).
      if (this.dirty.size + this.sighted.size === 0) return;
      this.inFlight = { rows: [...this.dirty.values()], emitters: [...this.sighted.values()] };
      this.dirty.clear();
      this.sighted.clear();
    }
    this.writeRows(this.inFlight.rows, this.inFlight.emitters);
  }

  private settleTurn(): void {
    this.inFlight = null;
  }

  /**
   * A write-behind turn has no caller to tell: the rows stay queued, and the next read's flush
   * retries and reports the failure to its caller (never a crash of the daemon).
   */
  private recoverTurn(): void {
    const flight = this.inFlight;
    this.inFlight = null;
    if (flight !== null) this.requeue(flight.rows, flight.emitters);
  }

  /** Puts rows whose write failed back in the queue (newer updates of the same row win). */
  private requeue(rows: readonly SessionRow[], emitters: readonly EmitterSighting[]): void {
    for (const r of rows) {
      const key = keyOf(r.source, r.session);
      if (!this.dirty.has(key)) this.dirty.set(key, r);
    }
    for (const e of emitters) {
      const key = keyOf(e.source, e.session);
      if (!this.sighted.has(key)) this.sighted.set(key, e);
    }
  }
}

/** The position after which a sessions page starts (the last row of the previous page). */
export interface SessionsCursor {
  readonly lastSeenMs: number;
  readonly source: string;
  readonly session: string;
}

function toSummary(r: RawRow): SessionSummary {
  const row = toRow(r);
  return {
    source: row.source,
    session: row.session,
    agent: row.agent,
    vendor: row.vendor,
    cwd: row.cwd ?? r.launched_cwd ?? null,
    state: row.state,
    firstSeen: new Date(row.firstSeenMs).toISOString(),
    lastSeen: new Date(row.lastSeenMs).toISOString(),
    lastHook: row.lastHook,
    instructOptIn: row.instructOptIn,
    permissionsOptIn: row.permissionsOptIn,
    pendingAttention: row.pendingAttention,
    eventCount: r.event_count ?? 0,
    origin: typeof r.launched_cwd === 'string' ? 'launched' : 'observed',
  };
}
