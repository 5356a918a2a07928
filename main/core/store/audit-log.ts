/** The append-only audit history: cheap synchronous appends, filtered newest-first pages, full exports. */
import type { Database, Statement } from 'better-sqlite3';
import { SURFACES, type AuditPage, type AuditQuery, type AuditRow } from '../../../common/audit';
import { StoreError } from './store-error';

/** What `append` takes: a row without its id, with the time defaulting to now. */
export type AuditInput = Omit<AuditRow, 'id' | 'time'> & { readonly time?: string };

/** Page size when the query names none. */
export const AUDIT_DEFAULT_LIMIT = 100;
/** The largest page served (larger limits are clamped); also the export's read page. */
export const AUDIT_MAX_LIMIT = 1_000;

interface DbRow {
  id: number;
  time: string;
  actor: string;
  surface: AuditRow['surface'];
  action: string;
  session: string | null;
  command_id: string | null;
  outcome: string;
  detail: string | null;
}

/** Filter columns in a fixed order: the key of the statement cache is which of them are present. */
const FILTERS = [
  ['session', 'session'],
  ['action', 'action'],
  ['surface', 'surface'],
  ['outcome', 'outcome'],
] as const;

/** The `audit` table. */
export class AuditLog {
  private readonly insertStmt: Statement;
  /** Prepared once per filter combination (at most 16 pages + 16 counts), on first use. */
  private readonly pageStmts = new Map<string, Statement>();
  private readonly countStmts = new Map<string, Statement>();

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare(
      `INSERT INTO audit (time, actor, surface, action, session, command_id, outcome, detail) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** Appends one row and returns it with its id. Throws StoreError('invalid-input') for a malformed row. */
  append(input: AuditInput): AuditRow {
    const problem = checkInput(input);
    if (problem !== null) throw new StoreError('invalid-input', `audit row refused: ${problem}`);
    const time = input.time ?? new Date().toISOString();
    let detail: string | null = null;
    try {
      if (input.detail !== null && input.detail !== undefined)
        detail = JSON.stringify(input.detail);
    } catch (error) {
      throw new StoreError(
        'invalid-input',
        `audit row refused: 'detail' is not JSON-serialisable (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    const info = this.insertStmt.run(
      time,
      input.actor,
      input.surface,
      input.action,
      input.session ?? null,
      input.commandId ?? null,
      input.outcome,
      detail,
    );
    return {
      id: Number(info.lastInsertRowid),
      time,
      actor: input.actor,
      surface: input.surface,
      action: input.action,
      session: input.session ?? null,
      commandId: input.commandId ?? null,
      outcome: input.outcome,
      detail: input.detail ?? null,
    };
  }

  /** One page of matching rows, newest first; `next` is the `before` for the following page; `total` counts every match. */
  query(q: AuditQuery = {}): AuditPage {
    const limit = clampLimit(q.limit);
    const { key, values } = filterOf(q);
    // One extra row tells whether an older page exists without a second query.
    const rows = this.page(key).all(
      ...values,
      q.before ?? Number.MAX_SAFE_INTEGER,
      limit + 1,
    ) as DbRow[];
    const more = rows.length > limit;
    const kept = more ? rows.slice(0, limit) : rows;
    const { total } = this.count(key).get(...values) as { total: number };
    return { rows: kept.map(toRow), next: more ? kept[kept.length - 1].id : null, total };
  }

  /** Every matching row, newest first (starting below `before` when given), read in pages for exports. */
  *iterate(q: Omit<AuditQuery, 'limit'> = {}): IterableIterator<AuditRow> {
    const { key, values } = filterOf(q);
    let before = q.before ?? Number.MAX_SAFE_INTEGER;
    for (;;) {
      const rows = this.page(key).all(...values, before, AUDIT_MAX_LIMIT) as DbRow[];
      for (const row of rows) yield toRow(row);
      if (rows.length < AUDIT_MAX_LIMIT) return;
      before = rows[rows.length - 1].id;
    }
  }

  private page(key: string): Statement {
    let stmt = this.pageStmts.get(key);
    if (stmt === undefined) {
      stmt = this.db.prepare(
        `SELECT * FROM audit WHERE ${whereOf(key)} AND id < ? ORDER BY id DESC LIMIT ?`,
      );
      this.pageStmts.set(key, stmt);
    }
    return stmt;
  }

  private count(key: string): Statement {
    let stmt = this.countStmts.get(key);
    if (stmt === undefined) {
      stmt = this.db.prepare(`SELECT COUNT(*) AS total FROM audit WHERE ${whereOf(key)}`);
      this.countStmts.set(key, stmt);
    }
    return stmt;
  }
}

function filterOf(q: Omit<AuditQuery, 'limit'>): { key: string; values: string[] } {
  let key = '';
  const values: string[] = [];
  for (const [field] of FILTERS) {
    const value = q[field];
    if (value === undefined) {
      key += '0';
    } else {
      key += '1';
      values.push(value);
    }
  }
  return { key, values };
}

const whereOf = (key: string): string =>
  ['1 = 1', ...FILTERS.filter((_, i) => key[i] === '1').map(([, column]) => `${column} = ?`)].join(
    ' AND ',
  );

function clampLimit(limit: number | undefined): number {
  if (limit === undefined || !Number.isFinite(limit)) return AUDIT_DEFAULT_LIMIT;
  return Math.min(AUDIT_MAX_LIMIT, Math.max(1, Math.trunc(limit)));
}

const toRow = (row: DbRow): AuditRow => ({
  id: row.id,
  time: row.time,
  actor: row.actor,
  surface: row.surface,
  action: row.action,
  session: row.session,
  commandId: row.command_id,
  outcome: row.outcome,
  detail: row.detail === null ? null : (JSON.parse(row.detail) as AuditRow['detail']),
});

function checkInput(input: AuditInput): string | null {
  if (typeof input !== 'object' || input === null) return 'expected an object';
  for (const field of ['actor', 'action', 'outcome'] as const) {
    if (typeof input[field] !== 'string' || input[field].length === 0)
      return `'${field}' must be a non-empty string`;
  }
  if (!(SURFACES as readonly string[]).includes(input.surface))
    return `'surface' must be one of ${SURFACES.join(', ')} (got ${String(input.surface)})`;
  for (const field of ['session', 'commandId'] as const) {
    const value = input[field];
    if (value !== null && value !== undefined && typeof value !== 'string')
      return `'${field}' must be a string or null`;
  }
  if (
    input.time !== undefined &&
    (typeof input.time !== 'string' || Number.isNaN(Date.parse(input.time)))
  )
    return `'time' must be an ISO date-time`;
  if (
    input.detail !== null &&
    input.detail !== undefined &&
    (typeof input.detail !== 'object' || Array.isArray(input.detail))
  ) {
    return `'detail' must be an object or null`;
  }
  return null;
}
