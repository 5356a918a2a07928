/**
 * The `session_registry` table (migration 0160): the sources that saw each agent session and the
 * one that owns it. Writes are rare (a source's first sighting of a session, an owner taking it)
 * and commit at once, so what the registry decided is on disk before anything acts on it.
 */
import type { Database, Statement } from 'better-sqlite3';

/** One source of one session as stored. */
export interface RegistryRow {
  readonly session: string;
  readonly kind: string;
  readonly agent: string;
  readonly source: string;
  readonly owner: boolean;
  readonly firstSeenMs: number;
  readonly ownedAtMs: number | null;
}

interface RawRow {
  session: string;
  kind: string;
  agent: string;
  source: string;
  owner: number;
  first_seen_ms: number;
  owned_at_ms: number | null;
}

const toRow = (r: RawRow): RegistryRow => ({
  session: r.session,
  kind: r.kind,
  agent: r.agent,
  source: r.source,
  owner: r.owner === 1,
  firstSeenMs: r.first_seen_ms,
  ownedAtMs: r.owned_at_ms,
});

/** What a source tells the table about a session. */
export interface RegistryEntry {
  readonly session: string;
  readonly kind: string;
  readonly agent: string;
  readonly source: string;
  readonly nowMs: number;
}

/** Repository of `session_registry`; statements are prepared once. */
export class SessionRegistryRepo {
  private readonly seenStmt: Statement<Record<string, unknown>>;
  private readonly ownStmt: Statement<Record<string, unknown>>;
  private readonly demoteStmt: Statement<[string, string]>;
  private readonly ofStmt: Statement<[string]>;
  private readonly own: (e: RegistryEntry) => void;

  constructor(db: Database) {
    this.seenStmt = db.prepare(`
      INSERT INTO session_registry (session, kind, agent, source, owner, first_seen_ms, owned_at_ms)
      VALUES (@session, @kind, @agent, @source, 0, @now, NULL)
      ON CONFLICT (session, kind) DO NOTHING`);
    this.ownStmt = db.prepare(`
      INSERT INTO session_registry (session, kind, agent, source, owner, first_seen_ms, owned_at_ms)
      VALUES (@session, @kind, @agent, @source, 1, @now, @now)
      ON CONFLICT (session, kind) DO UPDATE SET owner = 1, source = excluded.source, owned_at_ms = excluded.owned_at_ms`);
    this.demoteStmt = db.prepare('UPDATE session_registry SET owner = 0 WHERE session = ? AND kind != ? AND owner = 1');
    this.ofStmt = db.prepare('SELECT * FROM session_registry WHERE session = ? ORDER BY first_seen_ms, kind');
    // One owner per session: taking it demotes any other row in the same transaction.
    this.own = db.transaction((e: RegistryEntry) => {
      this.demoteStmt.run(e.session, e.kind);
      this.ownStmt.run({ session: e.session, kind: e.kind, agent: e.agent, source: e.source, now: e.nowMs });
    });
  }

  /** Records that a source saw the session (idempotent: the first sighting's time stays). */
  sighted(e: RegistryEntry): void {
    this.seenStmt.run({ session: e.session, kind: e.kind, agent: e.agent, source: e.source, now: e.nowMs });
  }

  /** Records that a source owns the session (any earlier owner row is demoted). */
  owned(e: RegistryEntry): void {
    this.own(e);
  }

  /** Every source row of a session, oldest sighting first. */
  of(session: string): RegistryRow[] {
    return (this.ofStmt.all(session) as RawRow[]).map(toRow);
  }
}
