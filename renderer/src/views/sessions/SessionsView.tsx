/** The live list of sessions across vendors. */
import { useMemo, useRef, useState } from 'react';
import { VENDOR_NAMES } from '../../../../common/vendors';
import { sessionRows, type SessionPhase } from '../../model/session-rows';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { navigate } from '../../shell/use-route';
import { EmptyState } from '../../ui/EmptyState';
import { count, shortPath } from '../../ui/format';
import { RelativeTime } from '../../ui/RelativeTime';
import { PhaseBadge } from './PhaseBadge';
import { SteerabilityBadge } from './SteerabilityBadge';

type Show = 'live' | 'all';

/** The sessions view. */
export function SessionsView() {
  const { store } = useConsole();
  const version = useStoreAreas('sessions', 'fleet', 'status');
  const [show, setShow] = useState<Show>('live');
  const [query, setQuery] = useState('');
  const [cursor, setCursor] = useState(0);
  const tableRef = useRef<HTMLTableSectionElement>(null);

  const rows = useMemo(
    () => sessionRows(store.sessions, store.fleet, store.activity, store.vendors, store.steeringEnabled),
    [store, version],
  );
  const q = query.trim().toLowerCase();
  const shown = rows.filter(
    (r) =>
      (show === 'all' || r.phase !== 'ended') &&
      (!q || [r.summary.session, r.summary.cwd ?? '', r.summary.vendor ?? '', r.summary.agent].some((f) => f.toLowerCase().includes(q))),
  );
  const counts = rows.reduce<Record<SessionPhase, number>>((acc, r) => ((acc[r.phase] += 1), acc), { working: 0, waiting: 0, idle: 0, ended: 0 });

  if (!store.sessionsLoaded) {
    return <div className="view"><p className="muted loading">{store.sessionsError ? `Could not load sessions: ${store.sessionsError}` : 'Loading sessions…'}</p></div>;
  }

  if (rows.length === 0) {
    return (
      <div className="view">
        <EmptyState
          title="No sessions yet: set up your agents"
          icon={<svg viewBox="0 0 24 24" width="40" height="40"><path d="M4 6h16M4 12h10M4 18h7" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" fill="none" /></svg>}
          action={<a className="btn btn-primary" href="#/setup">Set up your agents</a>}
        >
          <p>The companion sees an agent session as soon as that agent's hooks call it. Install the hooks for Claude Code, Codex CLI, Qwen Code, the VS Code agent or Hermes, then start a session: it appears here live.</p>
        </EmptyState>
      </div>
    );
  }

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'j') setCursor((c) => Math.min(shown.length - 1, c + 1));
    else if (e.key === 'ArrowUp' || e.key === 'k') setCursor((c) => Math.max(0, c - 1));
    else if (e.key === 'Enter' && shown[cursor]) navigate({ name: 'session', id: shown[cursor].summary.session });
    else return;
    e.preventDefault();
  };

  return (
    <div className="view">
      <div className="view-head">
        <div>
          <h1 className="view-title">Sessions</h1>
          <p className="view-sub">
            {counts.working} working · {counts.waiting} waiting for approval · {counts.idle} idle · {counts.ended} ended
          </p>
        </div>
        <div className="toolbar">
          <input className="input input-search" type="search" placeholder="Filter by project, vendor or id" aria-label="Filter sessions" value={query} onChange={(e) => setQuery(e.target.value)} />
          <div className="segmented" role="group" aria-label="Which sessions">
            <button type="button" aria-pressed={show === 'live'} onClick={() => setShow('live')}>Live</button>
            <button type="button" aria-pressed={show === 'all'} onClick={() => setShow('all')}>All</button>
          </div>
        </div>
      </div>
      {shown.length === 0 ? (
        <p className="muted pad">No sessions match. {show === 'live' && counts.ended > 0 ? 'Ended sessions are under “All”.' : ''}</p>
      ) : (
        <div className="table-wrap">
          <table className="table sessions-table" aria-label="Sessions">
            <thead>
              <tr>
                <th scope="col">Agent</th>
                <th scope="col">Project</th>
                <th scope="col">State</th>
                <th scope="col">Last activity</th>
                <th scope="col">Steering</th>
                <th scope="col" className="num">Events</th>
              </tr>
            </thead>
            <tbody ref={tableRef} tabIndex={0} onKeyDown={onKeyDown} aria-label="Sessions, arrow keys to move, Enter to open">
              {shown.map((r, i) => (
                <tr
                  key={`${r.summary.source}\n${r.summary.session}`}
                  className={`clickable${i === cursor ? ' row-cursor' : ''}`}
                  data-testid="session-row"
                  data-session={r.summary.session}
                  onClick={() => navigate({ name: 'session', id: r.summary.session })}
                >
                  <td>
                    <a className="cell-main" href={`#/sessions/${encodeURIComponent(r.summary.session)}`} onClick={(e) => e.stopPropagation()}>
                      {r.summary.vendor ? VENDOR_NAMES[r.summary.vendor] : r.summary.agent}
                    </a>
                    <div className="cell-sub mono" title={r.summary.session}>{r.summary.session.slice(0, 13)}</div>
                  </td>
                  <td>
                    <span className="mono" title={r.summary.cwd ?? undefined}>{shortPath(r.summary.cwd)}</span>
                    {r.summary.lastHook ? <div className="cell-sub">last hook {r.summary.lastHook}</div> : null}
                  </td>
                  <td>
                    <PhaseBadge phase={r.phase} />
                  </td>
                  <td>
                    <RelativeTime iso={r.lastActivity} />
                  </td>
                  <td>
                    <SteerabilityBadge steerability={r.steerability} />
                  </td>
                  <td className="num">{count(r.summary.eventCount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </div>
  );
}
