/**
 * A fixed-row-height virtual list: only the rows in view (plus a margin) are in the DOM, so a
 * 10,000-event session renders as fast as a 50-event one. It follows the tail while the reader
 * is at the bottom, and otherwise holds still and says how many rows arrived below.
 */
import { useCallback, useEffect, useLayoutEffect, useRef, useState, type ReactNode } from 'react';

/** Props of the virtual list. */
export interface VirtualListProps<T> {
  readonly items: readonly T[];
  readonly rowHeight: number;
  readonly renderRow: (item: T, index: number) => ReactNode;
  readonly itemKey: (item: T) => string;
  readonly selected?: number;
  readonly onSelect?: (index: number) => void;
  readonly onActivate?: (index: number) => void;
  /** A click on a row (defaults to onSelect). */
  readonly onClickRow?: (index: number) => void;
  /** Extra keys for the owner; return true when handled. */
  readonly onKey?: (key: string, selected: number | undefined) => boolean;
  /** Prefix of the rows' element ids (aria-activedescendant). */
  readonly idPrefix?: string;
  readonly label: string;
  readonly overscan?: number;
}

/** The list. */
export function VirtualList<T>(props: VirtualListProps<T>) {
  const { items, rowHeight, overscan = 8 } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const [viewport, setViewport] = useState({ top: 0, height: 600 });
  const [follow, setFollow] = useState(true);
  const seenCount = useRef(items.length);
  const [unseen, setUnseen] = useState(0);

  const onScroll = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const atBottom = el.scrollTop + el.clientHeight >= el.scrollHeight - rowHeight;
    setFollow(atBottom);
    if (atBottom) setUnseen(0);
    setViewport({ top: el.scrollTop, height: el.clientHeight });
  }, [rowHeight]);

  useEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const observer = new ResizeObserver(() => setViewport({ top: el.scrollTop, height: el.clientHeight }));
    observer.observe(el);
    return () => observer.disconnect();
  }, []);

  useLayoutEffect(() => {
    const el = scroller.current;
    if (!el) return;
    const added = items.length - seenCount.current;
    seenCount.current = items.length;
    if (follow) {
      el.scrollTop = el.scrollHeight;
      setViewport({ top: el.scrollTop, height: el.clientHeight });
    } else if (added > 0) setUnseen((n) => n + added);
  }, [items.length, follow]);

  useLayoutEffect(() => {
    // Keep the keyboard selection in view.
    const el = scroller.current;
    if (!el || props.selected === undefined || props.selected < 0) return;
    const top = props.selected * rowHeight;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + rowHeight > el.scrollTop + el.clientHeight) el.scrollTop = top + rowHeight - el.clientHeight;
  }, [props.selected, rowHeight]);

  const first = Math.max(0, Math.floor(viewport.top / rowHeight) - overscan);
  const last = Math.min(items.length, Math.ceil((viewport.top + viewport.height) / rowHeight) + overscan);
  const visible: ReactNode[] = [];
  for (let i = first; i < last; i++) {
    const item = items[i];
    visible.push(
      <div
        key={props.itemKey(item)}
        id={props.idPrefix ? `${props.idPrefix}-${i}` : undefined}
        className={`vrow${props.selected === i ? ' vrow-selected' : ''}`}
        role="option"
        aria-posinset={i + 1}
        aria-setsize={items.length}
        aria-selected={props.selected === i}
        style={{ top: i * rowHeight, height: rowHeight }}
        onClick={() => (props.onClickRow ?? props.onSelect)?.(i)}
        onDoubleClick={() => props.onActivate?.(i)}
      >
        {props.renderRow(item, i)}
      </div>,
    );
  }

  const onKeyDown = (e: React.KeyboardEvent) => {
    if (!props.onSelect || items.length === 0) return;
    if (props.onKey?.(e.key, props.selected)) {
      e.preventDefault();
      return;
    }
    const current = props.selected ?? -1;
    const page = Math.max(1, Math.floor(viewport.height / rowHeight) - 1);
    let next: number | null = null;
    if (e.key === 'ArrowDown' || e.key === 'j') next = Math.min(items.length - 1, current + 1);
    else if (e.key === 'ArrowUp' || e.key === 'k') next = Math.max(0, current - 1);
    else if (e.key === 'PageDown') next = Math.min(items.length - 1, current + page);
    else if (e.key === 'PageUp') next = Math.max(0, current - page);
    else if (e.key === 'Home') next = 0;
    else if (e.key === 'End') next = items.length - 1;
    else if (e.key === 'Enter' && current >= 0) {
      props.onActivate?.(current);
      e.preventDefault();
      return;
    }
    if (next !== null) {
      e.preventDefault();
      props.onSelect(next);
    }
  };

  const jumpToLatest = () => {
    const el = scroller.current;
    if (!el) return;
    el.scrollTop = el.scrollHeight;
    setFollow(true);
    setUnseen(0);
  };

  return (
    <div className="vlist-wrap">
      <div
        ref={scroller}
        className="vlist"
        role="listbox"
        aria-label={props.label}
        aria-activedescendant={props.idPrefix && props.selected !== undefined && props.selected >= first && props.selected < last ? `${props.idPrefix}-${props.selected}` : undefined}
        tabIndex={0}
        onScroll={onScroll}
        onKeyDown={onKeyDown}
      >
        <div className="vlist-inner" style={{ height: items.length * rowHeight }}>
          {visible}
        </div>
      </div>
      {!follow && unseen > 0 ? (
        <button type="button" className="vlist-jump" onClick={jumpToLatest}>
          {unseen} new · jump to latest ↓
        </button>
      ) : null}
    </div>
  );
}
