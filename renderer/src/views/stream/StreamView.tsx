/**
 * One live stream of every session: each event as it arrives, each session in its own colour,
 * filterable by vendor, project and event kind. Subscribed only while this view is open.
 */
import { useEffect, useMemo, useState } from 'react';
import { VENDOR_NAMES, isVendorId } from '../../../../common/vendors';
import { STREAM_KINDS, filterStream, sessionColour, sessionKeys, type StreamKind } from '../../model/stream-filter';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { navigate } from '../../shell/use-route';
import { clockTime, shortPath } from '../../ui/format';
import { VirtualList } from '../../ui/VirtualList';

function summaryOf(data: Record<string, unknown> | undefined): string {
  if (!data) return '';
  for (const k of ['prompt', 'text', 'summary', 'reason', 'resolution', 'outcome']) if (typeof data[k] === 'string') return String(data[k]);
  const tool = data.tool as { name?: unknown } | undefined;
  const args = data.args as { command?: unknown; file_path?: unknown } | undefined;
  if (typeof tool?.name === 'string') return `${tool.name}${typeof args?.command === 'string' ? ` ${args.command}` : typeof args?.file_path === 'string' ? ` ${args.file_path}` : ''}`;
  return '';
}

/** The view. */
export function StreamView() {
  const { store } = useConsole();
  const version = useStoreAreas('stream', 'sessions');
  const [vendor, setVendor] = useState('');
  const [project, setProject] = useState('');
  const [kinds, setKinds] = useState<ReadonlySet<StreamKind>>(new Set(STREAM_KINDS));
  const [cursor, setCursor] = useState<number | undefined>(undefined);
  useEffect(() => store.stream.acquire(), [store]);

  const bySession = useMemo(() => new Map(store.sessions.map((s) => [s.session, s])), [store, version]);
  const vendors = useMemo(() => [...new Set(store.sessions.map((s) => s.vendor ?? s.agent))].sort(), [store, version]);
  const projects = useMemo(() => [...new Set(store.sessions.map((s) => s.cwd).filter((c): c is string => !!c))].sort(), [store, version]);
  const shown = useMemo(() => filterStream(store.stream.events, bySession, { vendor, project, kinds }), [store, version, bySession, vendor, project, kinds]);
  const toggle = (k: StreamKind) => {
    const next = new Set(kinds);
    if (next.has(k)) next.delete(k);
    else next.add(k);
    setKinds(next);
  };

  return (
    <div className="view view-stream">
      <div className="view-head">
        <div>
          <h1 className="view-title">Live stream</h1>
          <p className="view-sub">Every session as it happens, newest at the bottom. Only events arriving while this view is open are shown.</p>
        </div>
      </div>
      <div className="stream-filters" role="group" aria-label="Filter the stream">
        <label className="small">
          Vendor{' '}
          <select className="input" value={vendor} onChange={(e) => setVendor(e.target.value)} data-testid="stream-vendor">
            <option value="">All</option>
            {vendors.map((v) => (
              <option key={v} value={v}>
                {isVendorId(v) ? VENDOR_NAMES[v] : v}
              </option>
            ))}
          </select>
        </label>
        <label className="small">
          Project{' '}
          <select className="input" value={project} onChange={(e) => setProject(e.target.value)} data-testid="stream-project">
            <option value="">All</option>
            {projects.map((p) => (
              <option key={p} value={p}>
                {shortPath(p)}
              </option>
            ))}
          </select>
        </label>
        <span className="chips" role="group" aria-label="Event kinds">
          {STREAM_KINDS.map((k) => (
            <button key={k} type="button" className="chip" aria-pressed={kinds.has(k)} onClick={() => toggle(k)} data-testid={`stream-kind-${k}`}>
              {k}
            </button>
          ))}
        </span>
        <span className="small muted" data-testid="stream-count">
          {shown.length.toLocaleString('en-US')} of {store.stream.events.length.toLocaleString('en-US')} events
        </span>
      </div>
      {shown.length === 0 ? (
        <p className="muted pad">Waiting for events{store.stream.events.length > 0 ? ' that match the filters' : ''}…</p>
      ) : (
        <VirtualList
          items={shown}
          rowHeight={34}
          label="Live stream of all sessions, Enter opens the session"
          idPrefix="st"
          itemKey={(e) => `${e.source}\n${e.id}`}
          selected={cursor}
          onSelect={setCursor}
          onActivate={(i) => navigate({ name: 'session', id: shown[i].session! })}
          renderRow={(e) => {
            const keys = sessionKeys(bySession.get(e.session ?? ''), e);
            return (
              <div className="tl-row stream-row" data-testid="stream-row" data-session={e.session} data-type={e.type}>
                <span className="tl-time mono">{clockTime(e.time)}</span>
                <span className="stream-swatch" style={{ background: sessionColour(e.session ?? '') }} aria-hidden="true" />
                <span className="stream-session small" title={e.session}>
                  {keys.project ? shortPath(keys.project) : (e.session ?? '').slice(0, 12)}
                </span>
                <span className="tl-title mono small">{e.type}</span>
                <span className="tl-detail">{summaryOf(e.data)}</span>
              </div>
            );
          }}
        />
      )}
    </div>
  );
}
