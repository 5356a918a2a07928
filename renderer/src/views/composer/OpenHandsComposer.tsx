/**
 * The composer of an OpenHands conversation: its lever is `x.openhands.control.send_input`, a user
 * message appended to the conversation without starting a run (the agent reads it at its next
 * step), declared by the session in the live roster only while control is opted in (`--instruct`),
 * steering is on and the agent server is connected. The badge says what will happen, or why
 * nothing can (from the roster and the session's latest `x.openhands.server.status`).
 */
import { useState } from 'react';
import type { AepEvent } from '../../../../common/aep/envelope';
import { MAX_INPUT_CHARS, sendInputType } from '../../../../common/agents';
import { streamState } from '../../model/session-rows';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { Badge } from '../../ui/Badge';

/** The agent server as the session's latest `x.openhands.server.status` says, or null. */
export function serverState(events: readonly AepEvent[]): string | null {
  for (let i = events.length - 1; i >= 0; i--) {
    if (events[i].type !== 'x.openhands.server.status') continue;
    const state = (events[i].data as { state?: unknown } | undefined)?.state;
    return typeof state === 'string' ? state : null;
  }
  return null;
}

/** What the badge says and why nothing can be sent (null when it can). */
export function openHandsSteering(f: { ended: boolean; routed: boolean; server: string | null; steeringOn: boolean | null; working: boolean; waiting?: boolean }): { badge: string; blocked: string | null } {
  if (f.ended) return { badge: 'session ended', blocked: 'The conversation has ended; nothing can reach it any more.' };
  if (f.steeringOn === false) return { badge: 'steering is off', blocked: 'Steering is off (the kill switch in the header).' };
  if (f.server !== null && f.server !== 'connected' && !f.routed)
    return { badge: `agent server ${f.server}`, blocked: `The OpenHands agent server is ${f.server}: this conversation cannot be reached now.` };
  if (f.waiting && f.routed) return { badge: 'answer the confirmation first', blocked: 'The agent waits for a confirmation: answer its card first (a message now would be read only after it).' };
  if (!f.routed) return { badge: 'not steerable now', blocked: 'Control is not opted in (connect with --instruct, or tick “Allow control” in Settings → OpenHands).' };
  return { badge: f.working ? 'next step of the running agent' : 'idle: read when its next run starts', blocked: null };
}

export function OpenHandsSteerBadge({ session }: { session: string }) {
  const { store } = useConsole();
  useStoreAreas('fleet', 'status');
  const events = store.fleet.get(session)?.events ?? [];
  const { phase, open } = streamState(events);
  const s = openHandsSteering({ ended: phase === 'ended', routed: store.roster.accepts(session).includes(sendInputType('openhands')), server: serverState(events), steeringOn: store.steeringEnabled, working: phase === 'working', waiting: open.size > 0 });
  return (
    <span data-testid="openhands-steer-badge">
      <Badge tone={s.blocked ? 'warn' : 'accent'} title={s.blocked ?? s.badge}>
        Steering: {s.badge}
      </Badge>
    </span>
  );
}

export function OpenHandsComposer({ session }: { session: string }) {
  const { store } = useConsole();
  useStoreAreas('fleet', 'status', 'sessions');
  const [text, setText] = useState('');
  const events = store.fleet.get(session)?.events ?? [];
  const { phase, open } = streamState(events);
  const routed = store.roster.accepts(session).includes(sendInputType('openhands'));
  const { blocked } = openHandsSteering({ ended: phase === 'ended', routed, server: serverState(events), steeringOn: store.steeringEnabled, working: phase === 'working', waiting: open.size > 0 });
  const canSend = !blocked && text.trim().length > 0 && text.length <= MAX_INPUT_CHARS;
  const send = () => {
    if (!canSend) return;
    store.sendCommand({ type: sendInputType('openhands'), session, capture: 'redacted', data: { text: text.trim(), delivery: 'now' } }, text.trim());
    setText('');
  };
  return (
    <form className="composer" aria-label="Send a message" data-testid="openhands-composer" onSubmit={(e) => (e.preventDefault(), send())}>
      <label className="composer-label" htmlFor="openhands-text">
        Message this OpenHands conversation
      </label>
      <textarea
        id="openhands-text"
        className="input composer-text"
        data-testid="launched-text"
        rows={3}
        value={text}
        disabled={!!blocked}
        onChange={(e) => setText(e.target.value)}
        aria-describedby="openhands-says"
      />
      <p id="openhands-says" className={`small ${blocked ? 'composer-blocked' : 'muted'}`} data-testid="composer-says" aria-live="polite">
        {blocked ?? 'Appended to the conversation as a user message; the running agent reads it at its next step (no second run is started).'}
      </p>
      <div className="composer-foot">
        <span />
        <button type="submit" className="btn btn-primary" disabled={!canSend} data-testid="launched-send">
          Send
        </button>
      </div>
    </form>
  );
}
