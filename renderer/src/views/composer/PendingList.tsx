/**
 * What a session still holds before sending, next first: a launched session's queued messages
 * or a hook session's queued instructions. Each can be edited, moved or withdrawn until it is
 * sent; the list is the daemon's (`GET /api/pending`), refreshed on every change of the session's
 * stream, and an action shows the daemon's answer, never a guess. Each shows how long it has
 * waited; a queue held by Stop says so, with Resume.
 */
import { useCallback, useEffect, useState } from 'react';
import type { PendingItem, PendingList as Pending } from '../../../../common/agent-inputs';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { RelativeTime } from '../../ui/RelativeTime';

function Item({ item, first, last, onMove, onSaved, onError }: { item: PendingItem; first: boolean; last: boolean; onMove: (d: -1 | 1) => void; onSaved: () => void; onError: (e: string | null) => void }) {
  const { api } = useConsole();
  const [editing, setEditing] = useState(false);
  const [text, setText] = useState(item.text);
  const save = async () => {
    const r = await api('POST /api/pending/edit', { session: item.session, commandId: item.commandId, text });
    onError(r.ok ? null : r.error.message);
    if (r.ok) setEditing(false);
    onSaved();
  };
  const withdraw = async () => {
    const r = await api('POST /api/pending/withdraw', { session: item.session, commandId: item.commandId });
    onError(r.ok ? null : r.error.message);
    onSaved();
  };
  return (
    <li className="pending-item" data-testid="pending-item" data-command={item.commandId}>
      <div className="pending-head small muted">
        <span>#{item.position + 1}</span>
        <span>{item.delivery === 'instruct' ? 'next eligible hook' : 'next turn'}</span>
        <span data-testid="pending-age">
          queued <RelativeTime iso={item.queuedAt} />
        </span>
        {item.edits > 0 ? <span>edited</span> : null}
      </div>
      {editing ? (
        <div className="pending-edit">
          <textarea className="input" aria-label="Edit the queued message" value={text} onChange={(e) => setText(e.target.value)} rows={3} data-testid="pending-edit-text" />
          <div className="row-actions">
            <button type="button" className="btn btn-small btn-primary" onClick={() => void save()} disabled={!text.trim()} data-testid="pending-save">
              Save
            </button>
            <button type="button" className="btn btn-small" onClick={() => (setEditing(false), setText(item.text))}>
              Cancel
            </button>
          </div>
        </div>
      ) : (
        <p className="pending-text" data-testid="pending-text">
          {item.text}
        </p>
      )}
      {!editing ? (
        <div className="row-actions">
          <button type="button" className="btn btn-small" onClick={() => setEditing(true)} data-testid="pending-edit">
            Edit
          </button>
          <button type="button" className="btn btn-small" disabled={first} onClick={() => onMove(-1)} aria-label="Move up" data-testid="pending-up">
            ↑
          </button>
          <button type="button" className="btn btn-small" disabled={last} onClick={() => onMove(1)} aria-label="Move down" data-testid="pending-down">
            ↓
          </button>
          <button type="button" className="btn btn-small btn-danger-soft" onClick={() => void withdraw()} data-testid="pending-withdraw">
            Withdraw
          </button>
        </div>
      ) : null}
    </li>
  );
}

/** A session's pending list as the daemon last answered it (null until loaded), reloaded on every change of its stream. */
export interface PendingState {
  readonly list: Pending | null;
  readonly setList: (list: Pending) => void;
  readonly load: () => Promise<void>;
}

/** Loads and follows one session's pending list. */
export function usePending(session: string): PendingState {
  const { api } = useConsole();
  const version = useStoreAreas('fleet', 'commands');
  const [list, setList] = useState<Pending | null>(null);
  const load = useCallback(async () => {
    const r = await api('GET /api/pending', { session });
    if (r.ok) setList(r.value);
  }, [api, session]);
  useEffect(() => {
    void load();
  }, [load, version]);
  return { list, setList, load };
}

/** The pending list of one session. */
export function PendingList({ session }: { session: string }) {
  return <PendingListOf session={session} pending={usePending(session)} />;
}

/** The pending list, from a state its caller shares (the launched composer reads the hold from it too). */
export function PendingListOf({ session, pending }: { session: string; pending: PendingState }) {
  const { api } = useConsole();
  const { list, setList, load } = pending;
  const [error, setError] = useState<string | null>(null);

  const items = list?.items ?? [];
  const move = async (index: number, delta: -1 | 1) => {
    const order = items.map((i) => i.commandId);
    const [moved] = order.splice(index, 1);
    order.splice(index + delta, 0, moved);
    const r = await api('POST /api/pending/reorder', { session, order });
    setError(r.ok ? null : r.error.message);
    if (r.ok) setList(r.value);
    else void load();
  };
  const resume = async () => {
    const r = await api('POST /api/pending/resume', { session });
    setError(r.ok ? null : r.error.message);
    if (r.ok) setList(r.value);
    else void load();
  };
  if (items.length === 0 && !error) return null;
  const paused = list?.paused ?? null;
  return (
    <section className="stack pending" aria-label="Waiting to be sent" data-testid="pending-list" data-paused={paused ? 'true' : 'false'}>
      <h2 className="section-title">
        Waiting to be sent ({items.length}){paused ? ' · paused' : ''}
      </h2>
      {paused ? (
        <div className="pending-paused" role="status" data-testid="pending-paused">
          <span className="small">
            Paused by Stop <RelativeTime iso={paused.since} />: nothing here is sent until you resume, or send a new message (it goes first).
          </span>
          <button type="button" className="btn btn-small btn-primary" onClick={() => void resume()} data-testid="pending-resume">
            Resume
          </button>
        </div>
      ) : null}
      <ol className="pending-items">
        {items.map((item, i) => (
          <Item key={item.commandId} item={item} first={i === 0} last={i === items.length - 1} onMove={(d) => void move(i, d)} onSaved={() => void load()} onError={setError} />
        ))}
      </ol>
      {error ? (
        <p className="small composer-blocked" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
