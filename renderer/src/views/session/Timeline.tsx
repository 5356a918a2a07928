/** The virtualized session timeline with category filters. */
import { useMemo, useState } from 'react';
import { CATEGORIES, CATEGORY_NAMES, type Category, type TimelineRow } from '../../model/timeline';
import { Badge } from '../../ui/Badge';
import { clockTime } from '../../ui/format';
import { VirtualList } from '../../ui/VirtualList';

const ROW_HEIGHT = 40;

const KIND_ICON: Record<TimelineRow['kind'], string> = {
  prompt: '›',
  'run-end': '■',
  tool: '⚙',
  attention: '!',
  instruction: '➜',
  session: '◆',
  other: '·',
};

/** The timeline. */
export function Timeline(props: {
  rows: readonly TimelineRow[];
  counts: Readonly<Record<Category, number>>;
  /** Changes whenever rows were appended or updated in place. */
  version: string;
  selectedKey: string | null;
  onSelect: (row: TimelineRow) => void;
}) {
  const { rows, counts, version, selectedKey, onSelect } = props;
  const [hidden, setHidden] = useState<ReadonlySet<Category>>(new Set());
  const shown = useMemo(() => (hidden.size === 0 ? rows : rows.filter((r) => !hidden.has(r.category))), [rows, hidden, version]);
  const selected = selectedKey ? shown.findIndex((r) => r.key === selectedKey) : -1;

  const toggle = (c: Category) => {
    const next = new Set(hidden);
    if (next.has(c)) next.delete(c);
    else next.add(c);
    setHidden(next);
  };

  return (
    <div className="timeline">
      <div className="chips" role="group" aria-label="Show categories">
        {CATEGORIES.map((c) => (
          <button key={c} type="button" className="chip" aria-pressed={!hidden.has(c)} onClick={() => toggle(c)} data-testid={`filter-${c}`}>
            {CATEGORY_NAMES[c]} <span className="chip-count">{counts[c].toLocaleString('en-US')}</span>
          </button>
        ))}
        {hidden.size > 0 ? (
          <button type="button" className="chip chip-reset" onClick={() => setHidden(new Set())}>
            Show all
          </button>
        ) : null}
      </div>
      {shown.length === 0 ? (
        <p className="muted pad">{rows.length === 0 ? 'No events in this session yet.' : 'No events in the selected categories.'}</p>
      ) : (
        <VirtualList
          items={shown}
          rowHeight={ROW_HEIGHT}
          label="Session timeline"
          itemKey={(r) => r.key}
          selected={selected >= 0 ? selected : undefined}
          onSelect={(i) => onSelect(shown[i])}
          onActivate={(i) => onSelect(shown[i])}
          renderRow={(r) => (
            <div className={`tl-row tl-${r.kind}`} data-testid="timeline-row" data-kind={r.kind} data-seq={r.seq ?? ''} data-type={r.events[0].type}>
              <span className="tl-time mono">{clockTime(r.time)}</span>
              <span className={`tl-icon tl-icon-${r.category}`} aria-hidden="true">{KIND_ICON[r.kind]}</span>
              <span className="tl-title">{r.title}</span>
              <span className="tl-detail" title={r.detail}>{r.detail}</span>
              {r.status ? (
                <span className="tl-status">
                  <Badge tone={r.status.tone}>{r.status.label}</Badge>
                </span>
              ) : null}
            </div>
          )}
        />
      )}
    </div>
  );
}
