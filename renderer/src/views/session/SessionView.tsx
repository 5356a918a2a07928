/** One session: header facts, the live timeline, its open requests, and the steering composer. */
import { useEffect, useMemo, useRef, useState } from 'react';
import { VENDOR_NAMES, isVendorId } from '../../../../common/vendors';
import { attentionItems } from '../../model/attention-items';
import { instructionItems } from '../../model/instructions';
import { TimelineBuilder, type TimelineRow } from '../../model/timeline';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { navigate } from '../../shell/use-route';
import { EmptyState } from '../../ui/EmptyState';
import { count, shortPath } from '../../ui/format';
import { RelativeTime } from '../../ui/RelativeTime';
import { AttentionCard } from '../inbox/AttentionCard';
import { PhaseBadge } from '../sessions/PhaseBadge';
import { SteerabilityBadge } from '../sessions/SteerabilityBadge';
import { InputList } from '../composer/InputList';
import { LaunchedControls } from '../composer/LaunchedComposer';
import { ClineComposer, ClineSteerBadge } from '../composer/ClineComposer';
import { OpenHandsComposer, OpenHandsSteerBadge } from '../composer/OpenHandsComposer';
import { PendingList } from '../composer/PendingList';
import { LaunchBadge } from '../launch/LaunchBadge';
import { LaunchedSteerBadge } from '../launch/LaunchedSteerBadge';
import { SearchResults } from '../search/SearchResults';
import { Composer } from './Composer';
import { EventDetail } from './EventDetail';
import { InstructionList } from './InstructionList';
import { Timeline } from './Timeline';

/** The session view. */
export function SessionView({ id, event }: { id: string; event?: string }) {
  const { store } = useConsole();
  const detailVersion = useStoreAreas('detail');
  const fleetVersion = useStoreAreas('sessions', 'fleet', 'status', 'commands');
  // The selection (arrow keys) and the open detail are separate: moving never opens or closes.
  const [cursorKey, setCursorKey] = useState<string | null>(null);
  const [openKey, setOpenKey] = useState<string | null>(null);
  const returnFocus = useRef<HTMLElement | null>(null);
  const openRow = (r: TimelineRow) => {
    if (openKey !== r.key) returnFocus.current = document.activeElement instanceof HTMLElement ? document.activeElement : null;
    setCursorKey(r.key);
    setOpenKey(r.key);
  };
  const closeDetail = () => {
    setOpenKey(null);
    // Focus goes back where it was when the detail opened (the timeline), never to the page top.
    const back = returnFocus.current?.isConnected ? returnFocus.current : document.querySelector<HTMLElement>('.timeline [role=listbox]');
    requestAnimationFrame(() => back?.focus());
  };

  useEffect(() => {
    store.openSession(id);
    return () => store.closeSession(id);
  }, [store, id]);

  const log = store.detail.get(id);
  // One incremental builder per session: a live burst costs what it adds, not the history.
  const builder = useMemo(() => new TimelineBuilder(), [id]);
  const timeline = useMemo(() => {
    if (log) builder.update(log);
    return { rows: builder.rows, counts: builder.counts, turns: builder.turns, uncaptured: builder.uncaptured, levels: [...builder.uncapturedLevels], version: detailVersion };
  }, [builder, log, detailVersion]);
  const rows = timeline.rows;
  const summaryRow = useMemo(
    () => store.rowsOf(store.sessions.filter((s) => s.session === id))[0],
    [store, id, fleetVersion],
  );
  const instructions = useMemo(() => instructionItems(id, store.fleet.get(id)?.events ?? [], store.commands, (c) => store.caused(c)), [store, id, fleetVersion]);
  const openAttention = useMemo(() => {
    const own = store.fleet.get(id);
    return own ? attentionItems(new Map([[id, own]]), store.bySubject).open : [];
  }, [store, id, fleetVersion]);
  const selected: TimelineRow | undefined = openKey ? rows.find((r) => r.key === openKey) : undefined;
  const [searchText, setSearchText] = useState('');
  const [query, setQuery] = useState('');
  // Opened from a search hit (or a link naming an event): open its row once it is held.
  const [wanted, setWanted] = useState<string | undefined>(event);
  useEffect(() => setWanted(event), [event]);
  useEffect(() => {
    if (!wanted) return;
    const hit = rows.find((r) => r.events.some((e) => e.id === wanted));
    if (!hit) return;
    setCursorKey(hit.key);
    setOpenKey(hit.key);
    setWanted(undefined);
  }, [wanted, rows, timeline.version]);

  if (!summaryRow && (log?.size ?? 0) === 0) {
    if (!store.sessionsLoaded || !store.detailReady.has(id) || store.fleet.has(id)) {
      return <div className="view"><p className="muted loading">Loading session…</p></div>;
    }
    return (
      <div className="view">
        <EmptyState title="Session not found" action={<a className="btn" href="#/sessions">All sessions</a>}>
          <p className="mono">{id}</p>
          <p>It may have been removed by retention, or the link is from another machine.</p>
        </EmptyState>
      </div>
    );
  }

  const s = summaryRow?.summary;
  const launched = store.launched.get(id);
  const cline = !launched && s?.vendor === 'cline';
  const openhands = !launched && s?.agent === 'openhands' && s.vendor === null;
  const agentName = s?.vendor ? VENDOR_NAMES[s.vendor] : launched && isVendorId(launched.agent) ? VENDOR_NAMES[launched.agent] : (launched?.agent ?? s?.agent ?? 'Session');
  const exhausted = store.exhausted.get(id);
  return (
    <div
      className="session-view"
      onKeyDown={(e) => {
        // Escape closes the event detail, then goes back to the list; never while typing.
        if (e.key !== 'Escape' || (e.target as HTMLElement).closest('input, textarea, select, dialog')) return;
        if (openKey) closeDetail();
        else navigate({ name: 'sessions' });
      }}
    >
      <div className="session-head">
        <a href="#/sessions" className="back" aria-label="All sessions">
          ←
        </a>
        <div className="session-title">
          <h1 className="view-title">
            {summaryRow?.facts.title ? (
              <span className="session-heading" title={summaryRow.facts.title} data-testid="session-heading">
                {summaryRow.facts.title}
              </span>
            ) : null}
            {summaryRow?.facts.title ? <span className="session-cwd session-agent">{agentName}</span> : agentName}
            {s?.cwd ? (
              <span className="session-cwd mono" title={s.cwd}>
                {shortPath(s.cwd)}
              </span>
            ) : null}
          </h1>
          <p className="view-sub">
            <span className="mono" title="Session id">{id}</span>
            {s ? (
              <>
                {' · started '}
                <RelativeTime iso={s.firstSeen} />
                {' · last activity '}
                <RelativeTime iso={summaryRow.lastActivity} />
              </>
            ) : null}
            {' · '}
            <span data-testid="event-count">
              {count(log?.size ?? 0)} events{store.detailLoading(id) ? ' (loading earlier events…)' : ''}
            </span>
          </p>
        </div>
        <div className="session-badges">
          {summaryRow ? <PhaseBadge phase={summaryRow.phase} /> : null}
          <LaunchBadge launched={!!launched} />
          {launched ? <LaunchedSteerBadge info={launched} /> : cline ? <ClineSteerBadge session={id} /> : openhands ? <OpenHandsSteerBadge session={id} /> : summaryRow ? <SteerabilityBadge steerability={summaryRow.steerability} /> : null}
        </div>
      </div>
      {exhausted ? (
        <div className="banner banner-info" role="status">
          Older events of this session are no longer retained; the timeline starts at epoch {exhausted.epoch}, seq {exhausted.seq}.
        </div>
      ) : null}
      <div className="session-body">
        <div className="session-main">
          <form
            className="session-search"
            role="search"
            onSubmit={(e) => {
              e.preventDefault();
              setQuery(searchText.trim());
            }}
          >
            <input className="input input-search" type="search" aria-label="Search this session" placeholder="Search this session" value={searchText} onChange={(e) => (setSearchText(e.target.value), e.target.value === '' && setQuery(''))} data-testid="search-session" />
          </form>
          {query ? <SearchResults q={query} session={id} onOpen={(h) => setWanted(h.id)} /> : null}
          <Timeline
            rows={rows}
            counts={timeline.counts}
            turns={timeline.turns}
            version={timeline.version}
            cursorKey={cursorKey}
            onCursor={(r) => setCursorKey(r.key)}
            onOpen={openRow}
            uncaptured={timeline.uncaptured}
            uncapturedLevels={timeline.levels}
          />
          {selected ? <EventDetail row={selected} onClose={closeDetail} /> : null}
        </div>
        <aside className="session-side" aria-label="Steering and requests">
          {openAttention.length > 0 ? (
            <section className="stack" aria-label="Open requests">
              <h2 className="section-title">Needs your answer</h2>
              {openAttention.map((item) => (
                <AttentionCard key={item.request.id} item={item} />
              ))}
            </section>
          ) : null}
          {launched ? (
            <>
              <LaunchedControls info={launched} />
              <section aria-label="Messages" className="stack">
                <h2 className="section-title">Messages</h2>
                <InputList session={id} />
              </section>
            </>
          ) : cline || openhands ? (
            <>
              {cline ? <ClineComposer session={id} /> : <OpenHandsComposer session={id} />}
              <section aria-label="Messages" className="stack">
                <h2 className="section-title">Messages</h2>
                <InputList session={id} />
              </section>
            </>
          ) : (
            <>
              {summaryRow ? <Composer session={id} vendor={summaryRow.summary.vendor} steerability={summaryRow.steerability} /> : null}
              <PendingList session={id} />
              <section aria-label="Instructions" className="stack">
                <h2 className="section-title">Instructions</h2>
                <InstructionList items={instructions} />
              </section>
            </>
          )}
        </aside>
      </div>
    </div>
  );
}
