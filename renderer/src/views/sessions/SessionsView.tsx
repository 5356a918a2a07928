/** The live list of sessions across vendors. */
import { useEffect, useMemo, useRef, useState } from 'react';
import { VENDOR_NAMES, isVendorId } from '../../../../common/vendors';
import { formatCost, formatTokens } from '../../model/session-facts';
import { type SessionPhase, type SessionRow } from '../../model/session-rows';
import { useNow } from '../../ui/use-now';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { navigate } from '../../shell/use-route';
import { EmptyState } from '../../ui/EmptyState';
import { count, shortPath } from '../../ui/format';
import { RelativeTime } from '../../ui/RelativeTime';
import { LaunchBadge } from '../launch/LaunchBadge';
import { LaunchedSteerBadge } from '../launch/LaunchedSteerBadge';
import { NewSessionDialog } from '../launch/NewSessionDialog';
import { PhaseBadge } from './PhaseBadge';
import { SteerabilityBadge } from './SteerabilityBadge';

type Show = 'live' | 'all';

/** How long it has run, tool calls, turns and the tokens the agent reported. */
/** The agent's product name (a launched session names its agent by vendor id), else the agent as reported. */
function agentName(r: SessionRow): string {
  if (r.summary.vendor) return VENDOR_NAMES[r.summary.vendor];
  return isVendorId(r.summary.agent) ? VENDOR_NAMES[r.summary.agent] : r.summary.agent;
}

function SessionWork({ row, now }: { row: SessionRow; now: number }) {
  const end = row.phase === 'ended' ? Date.parse(row.lastActivity) : now;
  const ran = Math.max(0, end - Date.parse(row.summary.firstSeen));
  return (
    <span className="session-work small">
      <span title="How long the session has run">{duration(ran)}</span>
      {' · '}
      <span data-testid="tool-calls">{count(row.toolCalls)} tool call{row.toolCalls === 1 ? '' : 's'}</span>
      {row.facts.runs > 0 ? ` · ${count(row.facts.runs)} turn${row.facts.runs === 1 ? '' : 's'}` : ''}
      {row.facts.usage ? (
        <span data-testid="token-usage" title={`${count(row.facts.usage.input)} input and ${count(row.facts.usage.output)} output tokens, as the agent reported`}>
          {' · '}
          {formatTokens(row.facts.usage.input + row.facts.usage.output)} tokens
        </span>
      ) : null}
      {row.facts.cost ? (
        <span data-testid="session-cost" title="The cost the agent computed for this session">
          {' · '}
          {formatCost(row.facts.cost)}
        </span>
      ) : null}
    </span>
  );
}

/** A duration in the largest sensible units. */
function duration(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  return h < 48 ? `${h} h ${m % 60} min` : `${Math.floor(h / 24)} days`;
}

/** The session last opened from this list: coming back puts focus on its row again. */
let lastOpened: string | null = null;

function open(session: string): void {
  lastOpened = session;
  navigate({ name: 'session', id: session });
}

/** The sessions view. */
export function SessionsView() {
  const { store } = useConsole();
  const version = useStoreAreas('sessions', 'fleet', 'status');
  // Until the operator picks, Live when any session is live, else All (never an empty Live list).
  const [chosen, setShow] = useState<Show | null>(null);
  const [query, setQuery] = useState('');
  const [cursor, setCursor] = useState(0);
  const tableRef = useRef<HTMLTableSectionElement>(null);
  const now = useNow();
  const [launching, setLaunching] = useState(false);
  const newButton = useRef<HTMLButtonElement>(null);
  const dialog = (
    <NewSessionDialog
      open={launching}
      onClose={() => {
        setLaunching(false);
        newButton.current?.focus();
      }}
    />
  );
  const newSession = (
    <button ref={newButton} type="button" className="btn btn-primary" onClick={() => setLaunching(true)} data-testid="new-session">
      New session
    </button>
  );

  const rows = useMemo(
    () => store.rowsOf(),
    [store, version],
  );
  const show: Show = chosen ?? (rows.some((r) => r.phase !== 'ended') ? 'live' : 'all');
  const q = query.trim().toLowerCase();
  const shown = rows.filter(
    (r) =>
      (show === 'all' || r.phase !== 'ended') &&
      (!q || [r.summary.session, r.summary.cwd ?? '', r.summary.vendor ?? '', r.summary.agent, r.facts.title ?? ''].some((f) => f.toLowerCase().includes(q))),
  );
  const counts = rows.reduce<Record<SessionPhase, number>>((acc, r) => ((acc[r.phase] += 1), acc), { working: 0, waiting: 0, idle: 0, ended: 0 });

  const restoreIndex = lastOpened ? shown.findIndex((r) => r.summary.session === lastOpened) : -1;
  useEffect(() => {
    // Back from a session: the cursor and focus are on the row it was opened from.
    if (restoreIndex < 0 || !lastOpened) return;
    setCursor(restoreIndex);
    tableRef.current?.querySelector<HTMLElement>(`[data-session-link="${CSS.escape(lastOpened)}"]`)?.focus();
    lastOpened = null;
  }, [restoreIndex]);

  if (!store.sessionsLoaded) {
    return <div className="view"><p className="muted loading">{store.sessionsError ? `Could not load sessions: ${store.sessionsError}` : 'Loading sessions…'}</p></div>;
  }

  if (rows.length === 0) {
    return (
      <div className="view">
        <EmptyState
          title="No sessions yet: set up your agents"
          icon={<svg viewBox="0 0 24 24" width="40" height="40"><path d="M4 6h16M4 12h10M4 18h7" stroke="currentColor" strokeWidth="1.6" strokeLinecap="round" fill="none" /></svg>}
          action={
            <>
              <a className="btn btn-primary" href="#/setup">Set up your agents</a> {newSession}
            </>
          }
        >
          <p>The companion sees an agent session as soon as that agent's hooks call it. Install the hooks for Claude Code, Codex CLI, Qwen Code, the VS Code agent or Hermes, then start a session: it appears here live. Or start one from here with New session.</p>
        </EmptyState>
        {dialog}
      </div>
    );
  }

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'j') setCursor((c) => Math.min(shown.length - 1, c + 1));
    else if (e.key === 'ArrowUp' || e.key === 'k') setCursor((c) => Math.max(0, c - 1));
    else if (e.key === 'Enter' && shown[cursor]) open(shown[cursor].summary.session);
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
          <input className="input input-search" type="search" placeholder="Filter by title, project or id" aria-label="Filter sessions" value={query} onChange={(e) => setQuery(e.target.value)} />
          {newSession}
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
                <th scope="col">Session</th>
                <th scope="col">Project</th>
                <th scope="col">State</th>
                <th scope="col">Last activity</th>
                <th scope="col">Steering</th>
                <th scope="col">Work</th>
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
                  onClick={() => open(r.summary.session)}
                >
                  <td>
                    <a className="cell-main session-name" title={r.facts.title ?? undefined} data-testid="session-title" href={`#/sessions/${encodeURIComponent(r.summary.session)}`} data-session-link={r.summary.session} onClick={(e) => {
                      e.stopPropagation();
                      lastOpened = r.summary.session;
                    }}>
                      {r.facts.title ?? agentName(r)}
                    </a>
                    <div className="cell-sub" title={r.summary.session}>
                      {r.facts.title ? `${agentName(r)} · ` : ''}
                      {r.facts.model ? (
                        <>
                          <span className="mono" data-testid="session-model" title="The model the agent reported">{r.facts.model}</span>
                          {' · '}
                        </>
                      ) : null}
                      <span className="mono">{r.summary.session.slice(0, 13)}</span>
                    </div>
                    <LaunchBadge launched={store.launched.has(r.summary.session)} />
                  </td>
                  <td>
                    <span className="mono" title={r.summary.cwd ?? undefined}>{shortPath(r.summary.cwd)}</span>
                    {r.facts.currentPrompt ? (
                      <div className="cell-sub cell-prompt" data-testid="current-prompt" title={r.facts.currentPrompt}>
                        › {r.facts.currentPrompt}
                      </div>
                    ) : r.summary.lastHook ? (
                      <div className="cell-sub">last hook {r.summary.lastHook}</div>
                    ) : null}
                  </td>
                  <td>
                    <PhaseBadge phase={r.phase} />
                  </td>
                  <td>
                    <RelativeTime iso={r.lastActivity} />
                  </td>
                  <td>
                    {store.launched.has(r.summary.session) ? <LaunchedSteerBadge info={store.launched.get(r.summary.session)!} /> : <SteerabilityBadge steerability={r.steerability} />}
                  </td>
                  <td data-testid="session-work">
                    <SessionWork row={r} now={now} />
                  </td>
                  <td className="num session-events">
                    {count(r.summary.eventCount)}
                    <span className="narrow-only"> events</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {dialog}
    </div>
  );
}
