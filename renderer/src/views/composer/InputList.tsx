/** A launched session's messages, each with the state the stream settled. */
import { useMemo } from 'react';
import { inputItems } from '../../model/input-items';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { Badge } from '../../ui/Badge';
import { clockTime } from '../../ui/format';

const DELIVERY_WORDS: Record<string, string> = { now: 'send now', queue: 'queue', stop: 'stop and send' };

/** The list. */
export function InputList({ session }: { session: string }) {
  const { store } = useConsole();
  const version = useStoreAreas('fleet', 'commands');
  const items = useMemo(() => inputItems(session, store.fleet.get(session)?.events ?? [], store.commands, (id) => store.caused(id)), [store, session, version]);
  if (items.length === 0) return <p className="muted small">No messages sent to this session from the companion yet.</p>;
  return (
    <ol className="instructions" aria-label="Messages">
      {items.map((item) => (
        <li key={item.id} className="instruction" data-testid="input-item" data-phase={item.phase} data-command={item.id} data-seen={item.seen ? 'true' : undefined}>
          <div className="instruction-head">
            <span className="instruction-chip" data-testid="input-chip">
              <Badge tone={item.tone} dot title={item.label}>
                {item.label}
              </Badge>
            </span>
            <span className="muted small">
              {clockTime(item.sentAt)} · {DELIVERY_WORDS[item.delivery] ?? item.delivery}
            </span>
          </div>
          <p className="instruction-text">{item.text ?? <span className="muted">(text not captured at this capture level)</span>}</p>
        </li>
      ))}
    </ol>
  );
}
