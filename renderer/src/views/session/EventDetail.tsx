/** The selected timeline row's events, verbatim. */
import type { TimelineRow } from '../../model/timeline';
import { dateTime } from '../../ui/format';

/** The detail panel. */
export function EventDetail({ row, onClose }: { row: TimelineRow; onClose: () => void }) {
  return (
    <section className="detail" aria-label="Event detail">
      <div className="detail-head">
        <h2 className="section-title">{row.title}</h2>
        <span className="muted small">{dateTime(row.time)}</span>
        <button type="button" className="btn btn-small btn-ghost" onClick={onClose} aria-label="Close detail">
          ✕
        </button>
      </div>
      {row.events.map((e) => (
        <div key={`${e.source}\n${e.id}`} className="detail-event">
          <div className="detail-meta small">
            <span className="mono">{e.type}</span>
            {typeof e.seq === 'number' ? <span className="muted"> · epoch {e.epoch ?? 0} · seq {e.seq}</span> : <span className="muted"> · no seq (sent by {e.agent})</span>}
            {e.capture ? <span className="muted"> · capture {e.capture}</span> : null}
          </div>
          <pre className="json">{JSON.stringify(e, null, 2)}</pre>
        </div>
      ))}
    </section>
  );
}
