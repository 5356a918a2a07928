/**
 * Age-based retention for every table (the per-session event limit lives in EventStore): events by
 * their `time`, sessions not seen for a while (ended ones sooner) with their events, settled
 * instructions, recorded acks and audit rows. Each sweep deletes in bounded chunks, one short
 * transaction per chunk, and yields to the event loop between chunks, so hooks never wait for it.
 *
 * Events are walked in admission order (`n`) and the walk stops at the first chunk holding no
 * expired event: history is admitted roughly in time order, so an old-stamped event admitted late
 * waits until the events admitted before it expire. The FTS index follows by trigger (0090).
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Settings } from '../../../common/settings';

const DAY_MS = 86_400_000;

/** The retention settings a sweep applies (days). */
export type RetentionPolicy = Pick<
  Settings,
  | 'retention.eventDays'
  | 'retention.sessionDays'
  | 'retention.endedSessionDays'
  | 'retention.steeringDays'
  | 'retention.auditDays'
>;

/** Rows removed by one sweep, per table. */
export interface SweepCounts {
  events: number;
  sessions: number;
  steering: number;
  controlAcks: number;
  audit: number;
}

/** Options of the sweeper. */
export interface RetentionOptions {
  /** Rows per chunk (one transaction each). */
  readonly chunk?: number;
  /** Awaited between chunks; default: one macrotask turn. */
  readonly yieldTurn?: () => Promise<void>;
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

interface Removed {
  session: string;
  ord_epoch: number;
  ord_seq: number;
}

/** Deletes what is older than the policy allows, chunk by chunk. */
export class RetentionSweeper {
  private readonly chunk: number;
  private readonly yieldTurn: () => Promise<void>;
  private readonly windowStmt: Statement<[number, number]>;
  private readonly expireEventsStmt: Statement<[number, number, string]>;
  private readonly sessionEventsStmt: Statement<[string, number]>;
  private readonly trimmedStmt: Statement;
  private readonly dropHeldStmt: Statement<[string]>;
  private readonly dropPositionStmt: Statement<[string]>;
  private readonly expireSessionsStmt: Statement<[number, number, number]>;
  private readonly hasIdStmt: Statement<[string]>;
  private readonly steeringStmt: Statement<[number, number]>;
  private readonly acksStmt: Statement<[number, number]>;
  private readonly auditStmt: Statement<[string, number]>;
  private readonly applyRemoved: (rows: readonly Removed[]) => void;
  private running: Promise<SweepCounts> | null = null;

  constructor(
    private readonly db: Database,
    options: RetentionOptions = {},
  ) {
    this.chunk = Math.max(1, Math.trunc(options.chunk ?? 2_000));
    this.yieldTurn = options.yieldTurn ?? nextTurn;
    this.windowStmt = db.prepare(
      'SELECT MAX(n) AS hi FROM (SELECT n FROM events WHERE n > ? ORDER BY n LIMIT ?)',
    );
    this.expireEventsStmt = db.prepare(
      `DELETE FROM events WHERE n > ? AND n <= ? AND julianday(time) < julianday(?)
       RETURNING session, ord_epoch, ord_seq`,
    );
    this.sessionEventsStmt = db.prepare(
      `DELETE FROM events WHERE n IN (SELECT n FROM events WHERE session = ? LIMIT ?)
       RETURNING session, ord_epoch, ord_seq`,
    );
    // Same rule as the per-session trim: the highest trimmed position never moves backwards.
    this.trimmedStmt = db.prepare(
      `UPDATE event_sessions SET
         held = MAX(0, held - :removed),
         trimmed_epoch = CASE WHEN trimmed_epoch IS NULL OR (:epoch, :seq) > (trimmed_epoch, trimmed_seq) THEN :epoch ELSE trimmed_epoch END,
         trimmed_seq = CASE WHEN trimmed_epoch IS NULL OR (:epoch, :seq) > (trimmed_epoch, trimmed_seq) THEN :seq ELSE trimmed_seq END
       WHERE session = :session`,
    );
    this.dropHeldStmt = db.prepare('DELETE FROM event_sessions WHERE session = ?');
    // Where a forgotten session's transcript was read up to goes with it.
    this.dropPositionStmt = db.prepare('DELETE FROM transcript_positions WHERE session = ?');
    this.expireSessionsStmt = db.prepare(
      `DELETE FROM sessions WHERE (source, session) IN (
         SELECT source, session FROM sessions
         WHERE (state = 'ended' AND last_seen_ms < ?) OR last_seen_ms < ?
         ORDER BY last_seen_ms LIMIT ?)
       RETURNING session`,
    );
    this.hasIdStmt = db.prepare('SELECT 1 FROM sessions WHERE session = ? LIMIT 1');
    this.steeringStmt = db.prepare(
      `DELETE FROM steering WHERE n IN (
         SELECT n FROM steering WHERE settled_at_ms IS NOT NULL AND settled_at_ms < ? LIMIT ?)`,
    );
    this.acksStmt = db.prepare(
      `DELETE FROM control_acks WHERE (source, command_id) IN (
         SELECT source, command_id FROM control_acks WHERE time_ms < ? LIMIT ?)`,
    );
    this.auditStmt = db.prepare(
      `DELETE FROM audit WHERE id IN (SELECT id FROM audit WHERE time < ? ORDER BY time LIMIT ?)`,
    );
    this.applyRemoved = (rows) => {
      const per = new Map<string, { removed: number; epoch: number; seq: number }>();
      for (const r of rows) {
        const p = per.get(r.session);
        if (p === undefined) per.set(r.session, { removed: 1, epoch: r.ord_epoch, seq: r.ord_seq });
        else {
          p.removed++;
          if (r.ord_epoch > p.epoch || (r.ord_epoch === p.epoch && r.ord_seq > p.seq)) {
            p.epoch = r.ord_epoch;
            p.seq = r.ord_seq;
          }
        }
      }
      for (const [session, p] of per) this.trimmedStmt.run({ session, ...p });
    };
  }

  /** Runs one sweep (a sweep already running is joined, not doubled). */
  sweep(policy: RetentionPolicy, nowMs: number = Date.now()): Promise<SweepCounts> {
    this.running ??= this.run(policy, nowMs).finally(() => {
      this.running = null;
    });
    return this.running;
  }

  private async run(policy: RetentionPolicy, nowMs: number): Promise<SweepCounts> {
    const counts: SweepCounts = { events: 0, sessions: 0, steering: 0, controlAcks: 0, audit: 0 };
    const before = (days: number): number => nowMs - days * DAY_MS;

    // Events by age, in admission order.
    const eventCutoff = new Date(before(policy['retention.eventDays'])).toISOString();
    let lo = 0;
    for (;;) {
      if (!this.db.open) return counts;
      const removed = this.db.transaction(() => {
        const { hi } = this.windowStmt.get(lo, this.chunk) as { hi: number | null };
        if (hi === null) return null;
        const rows = this.expireEventsStmt.all(lo, hi, eventCutoff) as Removed[];
        this.applyRemoved(rows);
        lo = hi;
        return rows.length;
      })();
      if (removed === null || removed === 0) break;
      counts.events += removed;
      await this.yieldTurn();
    }

    // Sessions (ended ones sooner), then the events of sessions no row names any more.
    for (;;) {
      if (!this.db.open) return counts;
      const gone = this.expireSessionsStmt.all(
        before(policy['retention.endedSessionDays']),
        before(policy['retention.sessionDays']),
        this.chunk,
      ) as { session: string }[];
      counts.sessions += gone.length;
      for (const session of new Set(gone.map((g) => g.session))) {
        counts.events += await this.forgetEvents(session);
      }
      if (gone.length < this.chunk) break;
      await this.yieldTurn();
    }

    counts.steering += await this.chunked(
      () => this.steeringStmt.run(before(policy['retention.steeringDays']), this.chunk).changes,
    );
    counts.controlAcks += await this.chunked(
      () => this.acksStmt.run(before(policy['retention.steeringDays']), this.chunk).changes,
    );
    const auditCutoff = new Date(before(policy['retention.auditDays'])).toISOString();
    counts.audit += await this.chunked(() => this.auditStmt.run(auditCutoff, this.chunk).changes);
    return counts;
  }

  /** Deletes every event of a forgotten session (unless another source still names the id). */
  private async forgetEvents(session: string): Promise<number> {
    if (this.hasIdStmt.get(session) !== undefined) return 0;
    let total = 0;
    for (;;) {
      if (!this.db.open) return total;
      const n = this.db.transaction(() => {
        const rows = this.sessionEventsStmt.all(session, this.chunk) as Removed[];
        if (rows.length < this.chunk) {
          this.dropHeldStmt.run(session);
          this.dropPositionStmt.run(session);
        }
        else this.applyRemoved(rows);
        return rows.length;
      })();
      total += n;
      if (n < this.chunk) return total;
      await this.yieldTurn();
    }
  }

  private async chunked(step: () => number): Promise<number> {
    let total = 0;
    for (;;) {
      if (!this.db.open) return total;
      const n = step();
      total += n;
      if (n < this.chunk) return total;
      await this.yieldTurn();
    }
  }
}

/** Options of the periodic sweep. */
export interface RetentionScheduleOptions extends RetentionOptions {
  /** Time between sweeps (default one hour). */
  readonly intervalMs?: number;
  /** Delay of the first sweep after start (default 30 s: the start stays quick). */
  readonly firstDelayMs?: number;
  readonly onSwept?: (counts: SweepCounts) => void;
  readonly onError?: (error: unknown) => void;
}

/** Sweeps periodically with the policy in force at each sweep; returns the stop function. */
export function startRetention(
  db: Database,
  policy: () => RetentionPolicy,
  options: RetentionScheduleOptions = {},
): () => void {
  const sweeper = new RetentionSweeper(db, options);
  const sweep = (): void => {
    sweeper.sweep(policy()).then(
      (counts) => options.onSwept?.(counts),
      (error: unknown) => options.onError?.(error),
    );
  };
  const first = setTimeout(sweep, options.firstDelayMs ?? 30_000);
  const every = setInterval(sweep, options.intervalMs ?? 3_600_000);
  first.unref();
  every.unref();
  return () => {
    clearTimeout(first);
    clearInterval(every);
  };
}
