/**
 * The virtualized session timeline, grouped by prompt turn (run): each prompt row heads its turn
 * and a turn can be collapsed to its header, so a long session reads turn by turn. Category
 * filters, and the keyboard: arrows move the selection (the detail stays as it is), Enter opens
 * the selected row, ← / → collapse and expand its turn.
 */
import { useMemo, useState } from 'react';
import { CATEGORIES, CATEGORY_NAMES, type Category, type TimelineRow, type TurnInfo } from '../../model/timeline';
import { formatTokens } from '../../model/session-facts';
import { Badge } from '../../ui/Badge';
import { clockTime } from '../../ui/format';
import { VirtualList } from '../../ui/VirtualList';

const ROW_HEIGHT = 40;

const KIND_ICON: Record<TimelineRow['kind'], string> = {
  prompt: '›',
  reply: '‹',
  'run-end': '■',
  tool: '⚙',
  attention: '!',
  instruction: '➜',
  session: '◆',
  other: '·',
};

/** A turn's tokens in a few characters: "1.2k tokens". */
function tokenCount(t: { input: number; output: number } | null): string {
  return t === null ? '' : `${formatTokens(t.input + t.output)} tokens`;
}

/** Props of the timeline. */
export interface TimelineProps {
  readonly rows: readonly TimelineRow[];
  readonly counts: Readonly<Record<Category, number>>;
  readonly turns: readonly TurnInfo[];
  /** Changes whenever rows were appended or updated in place. */
  readonly version: string;
  /** The keyboard/mouse selection. */
  readonly cursorKey: string | null;
  readonly onCursor: (row: TimelineRow) => void;
  /** Opens a row's detail. */
  readonly onOpen: (row: TimelineRow) => void;
  /** Rows whose content the capture level left out, and those levels (said once, here). */
  readonly uncaptured: number;
  readonly uncapturedLevels: readonly string[];
}

/** The timeline. */
export function Timeline(props: TimelineProps) {
  const { rows, counts, turns, version, cursorKey, onCursor, onOpen } = props;
  const [hidden, setHidden] = useState<ReadonlySet<Category>>(new Set());
  const [allCollapsed, setAllCollapsed] = useState(false);
  const [flipped, setFlipped] = useState<ReadonlySet<number>>(new Set());
  const [details, setDetails] = useState(false);
  const isCollapsed = (turn: number) => turn > 0 && allCollapsed !== flipped.has(turn);
  const plumbing = useMemo(() => rows.reduce((n, r) => n + (r.plumbing ? 1 : 0), 0), [rows, version]);
  const shown = useMemo(
    () =>
      hidden.size === 0 && !allCollapsed && flipped.size === 0 && (details || plumbing === 0)
        ? rows
        : rows.filter((r) => (details || !r.plumbing) && !hidden.has(r.category) && (r.kind === 'prompt' || !isCollapsed(r.turn))),
    [rows, hidden, allCollapsed, flipped, details, plumbing, version],
  );
  const selected = cursorKey ? shown.findIndex((r) => r.key === cursorKey) : -1;
  const realTurns = turns.length - 1;

  const toggle = (c: Category) => {
    const next = new Set(hidden);
    if (next.has(c)) next.delete(c);
    else next.add(c);
    setHidden(next);
  };
  const setTurn = (turn: number, collapsed: boolean) => {
    if (turn === 0 || isCollapsed(turn) === collapsed) return;
    const next = new Set(flipped);
    if (next.has(turn)) next.delete(turn);
    else next.add(turn);
    setFlipped(next);
  };
  const jumpTurn = (delta: number) => {
    const current = selected >= 0 ? shown[selected].turn : delta > 0 ? 0 : realTurns + 1;
    const target = Math.min(realTurns, Math.max(1, current + delta));
    const head = shown.find((r) => r.kind === 'prompt' && r.turn === target);
    if (head) onCursor(head);
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
        {plumbing > 0 ? (
          <button type="button" className="chip" aria-pressed={details} onClick={() => setDetails(!details)} data-testid="toggle-details" title="Usage updates, acknowledgements and status pings">
            Protocol details <span className="chip-count">{plumbing.toLocaleString('en-US')}</span>
          </button>
        ) : null}
        {realTurns > 0 ? (
          <span className="turn-tools" role="group" aria-label="Prompt turns">
            <span className="small muted" data-testid="turn-count">
              {realTurns.toLocaleString('en-US')} turn{realTurns === 1 ? '' : 's'}
            </span>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => jumpTurn(-1)} aria-label="Previous turn">
              ↑ turn
            </button>
            <button type="button" className="btn btn-small btn-ghost" onClick={() => jumpTurn(1)} aria-label="Next turn">
              ↓ turn
            </button>
            <button
              type="button"
              className="btn btn-small btn-ghost"
              data-testid="collapse-turns"
              onClick={() => {
                setAllCollapsed(!allCollapsed);
                setFlipped(new Set());
              }}
            >
              {allCollapsed ? 'Expand turns' : 'Collapse turns'}
            </button>
          </span>
        ) : null}
      </div>
      {props.uncaptured > 0 ? (
        <p className="capture-note small" data-testid="capture-note">
          {props.uncaptured.toLocaleString('en-US')} row{props.uncaptured === 1 ? '' : 's'} without content: prompts, commands and outputs are not captured at capture level{' '}
          <span className="mono">{props.uncapturedLevels.join(', ')}</span>. <a href="#/settings">Change the capture level</a>
        </p>
      ) : null}
      {shown.length === 0 ? (
        <p className="muted pad">{rows.length === 0 ? 'No events in this session yet.' : 'No events in the selected categories.'}</p>
      ) : (
        <VirtualList
          items={shown}
          rowHeight={ROW_HEIGHT}
          label="Session timeline, arrow keys to move, Enter to open"
          idPrefix="tl"
          itemKey={(r) => r.key}
          selected={selected >= 0 ? selected : undefined}
          onSelect={(i) => onCursor(shown[i])}
          onClickRow={(i) => {
            onCursor(shown[i]);
            onOpen(shown[i]);
          }}
          onActivate={(i) => onOpen(shown[i])}
          onKey={(key, i) => {
            if (i === undefined) return false;
            if (key === 'ArrowLeft') {
              // The selection moves to the turn's header, which stays in view.
              const turn = shown[i].turn;
              setTurn(turn, true);
              const head = shown.find((r) => r.kind === 'prompt' && r.turn === turn);
              if (head) onCursor(head);
            }
            else if (key === 'ArrowRight') setTurn(shown[i].turn, false);
            else return false;
            return true;
          }}
          renderRow={(r) => (
            <div
              className={`tl-row tl-${r.kind}${r.kind === 'prompt' ? ' tl-turn-head' : ''}`}
              data-testid="timeline-row"
              data-kind={r.kind}
              data-seq={r.seq ?? ''}
              data-type={r.events[0].type}
              data-turn={r.turn}
            >
              <span className="tl-time mono">{clockTime(r.time)}</span>
              <span className={`tl-icon tl-icon-${r.category}`} aria-hidden="true">
                {r.kind === 'prompt' ? (isCollapsed(r.turn) ? '▸' : '▾') : KIND_ICON[r.kind]}
              </span>
              <span className="tl-title" title={r.kind === 'tool' ? r.title : undefined}>{r.kind === 'prompt' ? `Turn ${r.turn}` : r.title}</span>
              <span className="tl-detail" title={r.detail}>
                {r.detail || (r.uncaptured ? <span className="muted">—</span> : null)}
              </span>
              {r.kind === 'prompt' && turns[r.turn] ? (
                <span
                  className="tl-turn-facts small"
                  title={turns[r.turn].tokens ? `${turns[r.turn].tokens!.input.toLocaleString('en-US')} input and ${turns[r.turn].tokens!.output.toLocaleString('en-US')} output tokens` : undefined}
                >
                  {turns[r.turn].tools} tool{turns[r.turn].tools === 1 ? '' : 's'}
                  {turns[r.turn].tokens ? ` · ${tokenCount(turns[r.turn].tokens)}` : ''}
                  {isCollapsed(r.turn) ? ` · ${turns[r.turn].rows - 1} rows hidden` : ''}
                </span>
              ) : null}
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
