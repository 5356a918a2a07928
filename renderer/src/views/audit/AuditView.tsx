/** The audit history: filterable, paginated (newest first), exportable as JSON Lines or CSV. */
import { useCallback, useEffect, useState } from 'react';
import { SURFACES, type AuditPage, type AuditQuery, type AuditRow, type Surface } from '../../../../common/audit';
import { downloadRoute } from '../../api/download';
import { useConsole } from '../../shell/console-context';
import { Badge, type BadgeTone } from '../../ui/Badge';
import { EmptyState } from '../../ui/EmptyState';
import { count, dateTime } from '../../ui/format';

const PAGE = 50;

function outcomeTone(outcome: string): BadgeTone {
  if (outcome === 'ok' || outcome === 'delivered' || outcome === 'accepted') return 'ok';
  if (outcome === 'rejected' || outcome === 'refused' || outcome === 'error' || outcome === 'dropped') return 'bad';
  return 'neutral';
}

function detailText(row: AuditRow): string {
  if (!row.detail) return '';
  return Object.entries(row.detail)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(' · ');
}

/** The audit view. */
export function AuditView() {
  const { api, connection, token } = useConsole();
  const [filter, setFilter] = useState<{ action: string; surface: Surface | ''; outcome: string; session: string }>({ action: '', surface: '', outcome: '', session: '' });
  const [applied, setApplied] = useState(filter);
  const [cursors, setCursors] = useState<(number | undefined)[]>([undefined]);
  const [page, setPage] = useState<AuditPage | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [exporting, setExporting] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);

  const query = useCallback(
    (before?: number): AuditQuery => ({
      ...(applied.action ? { action: applied.action } : {}),
      ...(applied.surface ? { surface: applied.surface } : {}),
      ...(applied.outcome ? { outcome: applied.outcome } : {}),
      ...(applied.session ? { session: applied.session } : {}),
      ...(before !== undefined ? { before } : {}),
      limit: PAGE,
    }),
    [applied],
  );

  const load = useCallback(async () => {
    const r = await api('GET /api/audit', query(cursors[cursors.length - 1]));
    if (r.ok) {
      setPage(r.value);
      setError(null);
    } else setError(r.error.message);
  }, [api, query, cursors]);

  useEffect(() => {
    void load();
  }, [load]);

  const exportAs = async (format: 'jsonl' | 'csv') => {
    setExporting(format);
    setNotice(null);
    const { limit: _limit, before: _before, ...rest } = query();
    const r = await downloadRoute(connection.baseUrl, token(), 'GET /api/audit/export', { ...rest, format }, `audit.${format}`);
    setExporting(null);
    setNotice(r.ok ? `Saved ${r.value.name} (${count(r.value.bytes)} bytes).` : `Export failed: ${r.error.message}`);
  };

  const apply = (e: React.FormEvent) => {
    e.preventDefault();
    setApplied(filter);
    setCursors([undefined]);
  };

  const pageIndex = cursors.length;
  return (
    <div className="view">
      <div className="view-head">
        <div>
          <h1 className="view-title">Audit</h1>
          <p className="view-sub">Every control action, refusal and configuration change, with who did it and through which surface.</p>
        </div>
        <div className="toolbar">
          <button type="button" className="btn" onClick={() => void exportAs('jsonl')} disabled={exporting !== null} data-testid="export-jsonl">
            {exporting === 'jsonl' ? 'Exporting…' : 'Export JSONL'}
          </button>
          <button type="button" className="btn" onClick={() => void exportAs('csv')} disabled={exporting !== null} data-testid="export-csv">
            {exporting === 'csv' ? 'Exporting…' : 'Export CSV'}
          </button>
        </div>
      </div>
      <form className="filters" onSubmit={apply} aria-label="Filter the audit history">
        <label className="field-inline">
          Action
          <input className="input" placeholder="e.g. instruct.delivered" value={filter.action} onChange={(e) => setFilter({ ...filter, action: e.target.value })} />
        </label>
        <label className="field-inline">
          Surface
          <select className="input" value={filter.surface} onChange={(e) => setFilter({ ...filter, surface: e.target.value as Surface | '' })}>
            <option value="">any</option>
            {SURFACES.map((s) => (
              <option key={s} value={s}>{s}</option>
            ))}
          </select>
        </label>
        <label className="field-inline">
          Outcome
          <input className="input input-short" placeholder="ok, rejected…" value={filter.outcome} onChange={(e) => setFilter({ ...filter, outcome: e.target.value })} />
        </label>
        <label className="field-inline">
          Session
          <input className="input" placeholder="session id" value={filter.session} onChange={(e) => setFilter({ ...filter, session: e.target.value })} />
        </label>
        <button type="submit" className="btn btn-primary">Apply</button>
        {applied.action || applied.surface || applied.outcome || applied.session ? (
          <button
            type="button"
            className="btn btn-ghost"
            onClick={() => {
              const empty = { action: '', surface: '' as const, outcome: '', session: '' };
              setFilter(empty);
              setApplied(empty);
              setCursors([undefined]);
            }}
          >
            Clear
          </button>
        ) : null}
      </form>
      {notice ? <p className="small notice" role="status" data-testid="export-notice">{notice}</p> : null}
      {error ? <p className="error-text" role="alert">Could not load the audit history: {error}</p> : null}
      {page && page.rows.length === 0 ? (
        <EmptyState title={applied.action || applied.surface || applied.outcome || applied.session ? 'No audit rows match these filters' : 'No audit history yet'}>
          <p>Instructions, answers, kill-switch changes, hook installs and refused requests are recorded here as they happen.</p>
        </EmptyState>
      ) : null}
      {page && page.rows.length > 0 ? (
        <>
          <div className="table-wrap">
            <table className="table audit-table" aria-label="Audit history">
              <thead>
                <tr>
                  <th scope="col">Time</th>
                  <th scope="col">Actor</th>
                  <th scope="col">Surface</th>
                  <th scope="col">Action</th>
                  <th scope="col">Session</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Detail</th>
                </tr>
              </thead>
              <tbody>
                {page.rows.map((row) => (
                  <tr key={row.id} data-testid="audit-row" data-action={row.action} data-outcome={row.outcome}>
                    <td className="nowrap small">{dateTime(row.time)}</td>
                    <td className="audit-nowrap">{row.actor}</td>
                    <td>
                      <Badge tone="muted">{row.surface}</Badge>
                    </td>
                    <td className="mono small">{row.action}</td>
                    <td className="mono small audit-nowrap" title={row.session ?? undefined}>
                      {row.session ? <a href={`#/sessions/${encodeURIComponent(row.session)}`}>{row.session.slice(0, 12)}</a> : '—'}
                    </td>
                    <td>
                      <Badge tone={outcomeTone(row.outcome)}>{row.outcome}</Badge>
                    </td>
                    <td className="small audit-detail" title={detailText(row)}>{detailText(row)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <div className="pager">
            <span className="muted small">
              Page {pageIndex} · {count(page.total)} rows in total
            </span>
            <button type="button" className="btn btn-small" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
              ← Newer
            </button>
            <button type="button" className="btn btn-small" disabled={page.next === null} onClick={() => page.next !== null && setCursors([...cursors, page.next])}>
              Older →
            </button>
          </div>
        </>
      ) : null}
    </div>
  );
}
