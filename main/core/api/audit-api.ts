/** `GET /api/audit` (filtered, newest-first pages) and `GET /api/audit/export` (JSON Lines or CSV). */
import type { AuditQuery, AuditRow, Surface } from '../../../common/audit';
import { SURFACES } from '../../../common/audit';
import { err, ok, type Result } from '../../../common/result';
import type { DaemonContext } from '../daemon-context';
import { ApiReply, type ApiHandlers } from './index';

const COLUMNS = [
  'id',
  'time',
  'actor',
  'surface',
  'action',
  'session',
  'commandId',
  'outcome',
  'detail',
] as const;

/** Parses the audit filter of a query string. */
export function parseAuditQuery(raw: unknown): Result<AuditQuery> {
  const q = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const out: { -readonly [K in keyof AuditQuery]: AuditQuery[K] } = {};
  for (const key of ['session', 'action', 'outcome'] as const) {
    if (q[key] !== undefined) {
      if (typeof q[key] !== 'string' || q[key] === '')
        return err('bad-request', `${key} must be a non-empty string`);
      out[key] = q[key] as string;
    }
  }
  if (q.surface !== undefined) {
    if (!(SURFACES as readonly unknown[]).includes(q.surface))
      return err('bad-request', `surface must be one of ${SURFACES.join(', ')}`);
    out.surface = q.surface as Surface;
  }
  for (const key of ['before', 'limit'] as const) {
    if (q[key] !== undefined) {
      const n = Number(q[key]);
      if (!Number.isSafeInteger(n) || n < 1)
        return err('bad-request', `${key} must be a positive integer`);
      out[key] = n;
    }
  }
  return ok(out);
}

/** One CSV field: quoted when needed, and defused against spreadsheet formula injection. */
function csvField(value: unknown): string {
  if (value === null || value === undefined) return '';
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Renders audit rows as CSV with a header line. */
export function auditCsv(rows: Iterable<AuditRow>): string {
  const lines = [COLUMNS.join(',')];
  for (const row of rows) lines.push(COLUMNS.map((c) => csvField(row[c])).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** Renders audit rows as JSON Lines. */
export function auditJsonl(rows: Iterable<AuditRow>): string {
  let out = '';
  for (const row of rows) out += `${JSON.stringify(row)}\n`;
  return out;
}

/** The audit handlers. */
export function auditApi(ctx: DaemonContext): ApiHandlers {
  return {
    'GET /api/audit': { parse: parseAuditQuery, handle: (q) => ctx.audit.query(q) },
    'GET /api/audit/export': {
      parse: (raw) => {
        const format = (raw as Record<string, unknown> | undefined)?.format ?? 'jsonl';
        if (format !== 'jsonl' && format !== 'csv')
          return err('bad-request', 'format must be jsonl or csv');
        const q = parseAuditQuery(raw);
        if (!q.ok) return q;
        const { limit: _limit, ...rest } = q.value;
        return ok({ ...rest, format });
      },
      handle: ({ format, ...q }) => {
        const rows = ctx.audit.iterate(q);
        const stamp = new Date().toISOString().replace(/[:.]/g, '-');
        return format === 'csv'
          ? new ApiReply(200, auditCsv(rows), 'text/csv; charset=utf-8', {
              'Content-Disposition': `attachment; filename="audit-${stamp}.csv"`,
            })
          : new ApiReply(200, auditJsonl(rows), 'application/x-ndjson; charset=utf-8', {
              'Content-Disposition': `attachment; filename="audit-${stamp}.jsonl"`,
            });
      },
    },
  };
}
