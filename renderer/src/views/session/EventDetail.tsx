/** The selected timeline row: its content in readable form, then its events verbatim. */
import { useEffect, useMemo, useRef } from 'react';
import { rowPieces } from '../../model/tool-content';
import type { TimelineRow } from '../../model/timeline';
import { dateTime } from '../../ui/format';
import { ContentView } from './content/ContentView';
import { JsonTree } from './content/JsonTree';

/** The detail panel. */
export function EventDetail({ row, onClose }: { row: TimelineRow; onClose: () => void }) {
  const pieces = useMemo(() => rowPieces(row), [row, row.events.length]);
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    // Opening moves focus into the detail (Escape closes it and focus goes back to the row).
    heading.current?.focus();
  }, [row.key]);
  return (
    <section className="detail" aria-label="Event detail" data-testid="event-detail">
      <div className="detail-head">
        <h2 className="section-title" tabIndex={-1} ref={heading}>
          {row.title}
        </h2>
        <span className="muted small">{dateTime(row.time)}</span>
        <button type="button" className="btn btn-small btn-ghost" onClick={onClose} aria-label="Close detail">
          ✕
        </button>
      </div>
      {pieces.length > 0 ? <ContentView pieces={pieces} /> : null}
      {pieces.length === 0 && row.uncaptured ? (
        <p className="small muted" data-testid="detail-not-captured">
          The content of this row was not captured at capture level <span className="mono">{row.events[0].capture ?? 'metadata'}</span>. <a href="#/settings">Change the capture level</a>
        </p>
      ) : null}
      <details className="detail-raw" open={pieces.length === 0 && !row.uncaptured}>
        <summary className="small">
          {row.events.length} event{row.events.length === 1 ? '' : 's'} as stored
        </summary>
        {row.events.map((e) => (
          <div key={`${e.source}\n${e.id}`} className="detail-event">
            <div className="detail-meta small">
              <span className="mono">{e.type}</span>
              {typeof e.seq === 'number' ? <span className="muted"> · epoch {e.epoch ?? 0} · seq {e.seq}</span> : <span className="muted"> · no seq (sent by {e.agent})</span>}
              {e.capture ? <span className="muted"> · capture {e.capture}</span> : null}
            </div>
            <JsonTree label="Event" value={e} />
          </div>
        ))}
      </details>
    </section>
  );
}
