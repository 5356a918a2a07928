/** The attention inbox across sessions: what needs an answer now, then what happened recently. */
import { useMemo, useState } from 'react';
import { canAskForNotifications } from '../../shell/attention-signals';
import { attentionItems } from '../../model/attention-items';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { EmptyState } from '../../ui/EmptyState';
import { AttentionCard } from './AttentionCard';

/** The inbox view. */
export function InboxView() {
  const { store, connection } = useConsole();
  const [ask, setAsk] = useState(() => canAskForNotifications(connection.mode));
  const version = useStoreAreas('fleet', 'sessions');
  const { open, closed } = useMemo(() => attentionItems(store.fleet, store.bySubject), [store, version]);
  const cwdOf = (session: string | undefined) => store.sessions.find((s) => s.session === session)?.cwd ?? null;
  return (
    <div className="view view-narrow">
      <div className="view-head">
        <div>
          <h1 className="view-title">Inbox</h1>
          <p className="view-sub">Permission prompts and questions from every session. Your answer goes back to the agent that asked.</p>
        </div>
        {ask ? (
          <button type="button" className="btn btn-small" onClick={() => void Notification.requestPermission().then(() => setAsk(canAskForNotifications(connection.mode)))}>
            Notify me in this browser
          </button>
        ) : null}
      </div>
      {open.length === 0 ? (
        <EmptyState title="Nothing needs you right now">
          <p>
            When an agent asks for permission or a question, the request shows up here and in its session (for a session seen through hooks, when its hooks were installed with the permission loop).
            A request left unanswered for the permission hold (Settings) times out: a hook session's agent then asks in its own window, a launched agent's request is cancelled.
          </p>
        </EmptyState>
      ) : (
        <section aria-label="Open requests" className="stack">
          {open.map((item) => (
            <AttentionCard key={item.request.id} item={item} cwd={cwdOf(item.request.session)} showSession />
          ))}
        </section>
      )}
      {closed.length > 0 ? (
        <section aria-label="Recent requests" className="stack">
          <h2 className="section-title">Recent</h2>
          {closed.map((item) => (
            <AttentionCard key={item.request.id} item={item} cwd={cwdOf(item.request.session)} showSession />
          ))}
        </section>
      ) : null}
    </div>
  );
}
