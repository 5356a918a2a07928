/**
 * Refused requests, aggregated: one `auth.refused` audit row per (minute, surface, actor, code)
 * holding a count and a bounded sample of what was asked, instead of one row per request. A flood
 * of refused requests (no token needed) therefore adds a bounded number of bounded rows.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { Surface } from '../../../common/audit';

/** One refused request as the listener reports it (never carries the token). */
export interface RefusedRequest {
  readonly method: string;
  readonly path: string;
  /** The refusal code (the aggregation key), e.g. `missing-token`. */
  readonly code: string;
  readonly reason: string;
  readonly surface: Surface;
  /** Who asked: 'operator', 'hook', 'anonymous' or 'invalid-token'. */
  readonly actor: string;
  /** Defaults to now. */
  readonly nowMs?: number;
}

/** At most this many distinct (method, path) samples per row. */
export const REFUSAL_SAMPLES = 5;
/** Sampled paths and the reason are cut to this many characters. */
export const REFUSAL_TEXT_MAX = 160;

interface Bucket {
  readonly id: number;
  readonly detail: {
    code: string;
    reason: string;
    count: number;
    first: string;
    last: string;
    samples: string[];
  };
}

const cut = (text: string): string =>
  text.length <= REFUSAL_TEXT_MAX ? text : `${text.slice(0, REFUSAL_TEXT_MAX - 1)}…`;

/** Counts refusals per minute into the audit table. */
export class RefusalTally {
  private readonly insertStmt: Statement;
  private readonly updateStmt: Statement;
  /** The buckets of the current minute only (older minutes are final). */
  private buckets = new Map<string, Bucket>();
  private minute = '';

  constructor(db: Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO audit (time, actor, surface, action, session, command_id, outcome, detail)
       VALUES (?, ?, ?, 'auth.refused', NULL, NULL, 'refused', ?)`,
    );
    this.updateStmt = db.prepare(`UPDATE audit SET detail = ? WHERE id = ?`);
  }

  /** Records one refused request: a new row for the first of its minute, a count update after. */
  record(r: RefusedRequest): void {
    const now = new Date(r.nowMs ?? Date.now()).toISOString();
    const minute = now.slice(0, 16);
    if (minute !== this.minute) {
      this.minute = minute;
      this.buckets = new Map();
    }
    const key = `${r.surface}\u0000${r.actor}\u0000${r.code}`;
    const sample = cut(`${r.method} ${r.path}`);
    const bucket = this.buckets.get(key);
    if (bucket === undefined) {
      const detail = {
        code: r.code,
        reason: cut(r.reason),
        count: 1,
        first: now,
        last: now,
        samples: [sample],
      };
      const info = this.insertStmt.run(now, r.actor, r.surface, JSON.stringify(detail));
      this.buckets.set(key, { id: Number(info.lastInsertRowid), detail });
      return;
    }
    const d = bucket.detail;
    d.count++;
    d.last = now;
    if (d.samples.length < REFUSAL_SAMPLES && !d.samples.includes(sample)) d.samples.push(sample);
    this.updateStmt.run(JSON.stringify(d), bucket.id);
  }
}
