/** One session: header facts, the live timeline, its open requests, and the steering composer. */
import { useEffect, useMemo, useState } from 'react';
import { VENDOR_NAMES } from '../../../../common/vendors';
import { attentionItems } from '../../model/attention-items';
import { instructionItems } from '../../model/instructions';
import { sessionRows } from '../../model/session-rows';
import { TimelineBuilder, type TimelineRow } from '../../model/timeline';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { navigate } from '../../shell/use-route';
import { EmptyState } from '../../ui/EmptyState';
import { count } from '../../ui/format';
import { RelativeTime } from '../../ui/RelativeTime';
import { AttentionCard } from '../inbox/AttentionCard';
import { PhaseBadge } from '../sessions/PhaseBadge';
import { SteerabilityBadge } from '../sessions/SteerabilityBadge';
import { Composer } from './Composer';
import { EventDetail } from './EventDetail';
import { InstructionList } from './InstructionList';
import { Timeline } from './Timeline';

/** The session view. */
export function SessionView({ id }: { id: string }) {
  const { store } = useConsole();
  const detailVersion = useStoreAreas('detail');
  const fleetVersion = useStoreAreas('sessions', 'fleet', 'status', 'commands');
  const [selectedKey, setSelectedKey] = useState<string | null>(null);

  useEffect(() => {
    store.openSession(id);
    return () => store.closeSession(id);
  }, [store, id]);

  const log = store.detail.get(id);
  // One incremental builder per session: a live burst costs what it adds, not the history.
  const builder = useMemo(() => new TimelineBuilder(), [id]);
  const timeline = useMemo(() => {
    if (log) builder.update(log);
    return { rows: builder.rows, counts: builder.counts, version: detailVersion };
  }, [builder, log, detailVersion]);
  const rows = timeline.rows;
  const summaryRow = useMemo(
    () => sessionRows(store.sessions.filter((s) => s.session === id), store.fleet, store.activity, store.vendors, store.steeringEnabled)[0],
    [store, id, fleetVersion],
  );
  const instructions = useMemo(() => instructionItems(id, store.fleet.get(id)?.events ?? [], store.commands, (c) => store.caused(c)), [store, id, fleetVersion]);
  const openAttention = useMemo(() => {
    const own = store.fleet.get(id);
    return own ? attentionItems(new Map([[id, own]]), store.bySubject).open : [];
  }, [store, id, fleetVersion]);
  const selected: TimelineRow | undefined = selectedKey ? rows.find((r) => r.key === selectedKey) : undefined;

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
  const exhausted = store.exhausted.get(id);
  return (
    <div
      className="session-view"
      onKeyDown={(e) => {
        // Escape closes the event detail, then goes back to the list; never while typing.
        if (e.key !== 'Escape' || (e.target as HTMLElement).closest('input, textarea, select, dialog')) return;
        if (selectedKey) setSelectedKey(null);
        else navigate({ name: 'sessions' });
      }}
    >
      <div className="session-head">
        <a href="#/sessions" className="back" aria-label="All sessions">
          ←
        </a>
        <div className="session-title">
          <h1 className="view-title">
            {s?.vendor ? VENDOR_NAMES[s.vendor] : (s?.agent ?? 'Session')}
            <span className="session-cwd mono" title={s?.cwd ?? undefined}>{s?.cwd ?? ''}</span>
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
            <span data-testid="event-count">{count(log?.size ?? 0)} events</span>
          </p>
        </div>
        <div className="session-badges">
          {summaryRow ? <PhaseBadge phase={summaryRow.phase} /> : null}
          {summaryRow ? <SteerabilityBadge steerability={summaryRow.steerability} /> : null}
        </div>
      </div>
      {exhausted ? (
        <div className="banner banner-info" role="status">
          Older events of this session are no longer retained; the timeline starts at epoch {exhausted.epoch}, seq {exhausted.seq}.
        </div>
      ) : null}
      <div className="session-body">
        <div className="session-main">
          <Timeline rows={rows} counts={timeline.counts} version={timeline.version} selectedKey={selectedKey} onSelect={(r) => setSelectedKey(r.key === selectedKey ? null : r.key)} />
          {selected ? <EventDetail row={selected} onClose={() => setSelectedKey(null)} /> : null}
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
          {summaryRow ? <Composer session={id} vendor={summaryRow.summary.vendor} steerability={summaryRow.steerability} /> : null}
          <section aria-label="Instructions" className="stack">
            <h2 className="section-title">Instructions</h2>
            <InstructionList items={instructions} />
          </section>
        </aside>
      </div>
    </div>
  );
}
