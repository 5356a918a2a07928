/**
 * The composer of a Cline session observed through its hooks: its steering lever is the hub's
 * `session.send_input` (user-plane input), declared by the session in the live roster as
 * `x.cline.control.send_input`. Offers Send now (steer the running run) and Queue only while the
 * relay routes that verb; the badge says what will happen, or why nothing can (hooks only: the
 * hub is not reachable, from the session's latest `x.cline.hub.status`).
 */
import { useState } from 'react';
import type { AepEvent } from '../../../../common/aep/envelope';
import { MAX_INPUT_CHARS, sendInputType } from '../../../../common/agents';
import { streamState } from '../../model/session-rows';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { Badge } from '../../ui/Badge';

type ClineDelivery = 'now' | 'queue';
const OPTIONS: readonly { delivery: ClineDelivery; label: string; says: string }[] = [
  {
    delivery: 'now',
    label: 'Send now',
    says: 'Steers the running Cline run through its hub: the text joins its next model request.',
  },
  {
    delivery: 'queue',
    label: 'Queue',
    says: 'Queued in the Cline hub to run after the current run (hub-native sessions only: a plain `cline "prompt"` run would drop it, so it is refused there with the reason).',
  },
];

/** The hub as the session's latest `x.cline.hub.status` says: connected, hooks-only, or not said yet. */
export function hubState(events: readonly AepEvent[]): 'connected' | 'hooks-only' | null {
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i];
    if (e.type !== 'x.cline.hub.status') continue;
    const state = (e.data as { state?: unknown } | undefined)?.state;
    return state === 'connected' ? 'connected' : 'hooks-only';
  }
  return null;
}

/** What the badge says and why nothing can be sent (null when it can). */
export function clineSteering(f: {
  ended: boolean;
  routed: boolean;
  hub: 'connected' | 'hooks-only' | null;
  steeringOn: boolean | null;
  working: boolean;
}): { badge: string; blocked: string | null } {
  if (f.ended)
    return {
      badge: 'session ended',
      blocked: 'The session has ended; nothing can reach it any more.',
    };
  if (f.steeringOn === false)
    return {
      badge: 'steering is off',
      blocked: 'Steering is off (the kill switch in the header).',
    };
  if (f.hub === 'hooks-only' && !f.routed)
    return {
      badge: 'hooks only: hub not reachable',
      blocked:
        'The Cline hub is not reachable: this session is observed through its hooks only and cannot be steered.',
    };
  if (!f.routed)
    return {
      badge: 'not steerable now',
      blocked:
        'The session does not declare Cline input now (not opted in with --instruct, or its hub does not know it).',
    };
  return {
    badge: f.working
      ? 'mid-run via the Cline hub'
      : 'via the Cline hub (idle: a steer waits for its next run)',
    blocked: null,
  };
}

/** The badge of a Cline session, from the live roster and the hub status. */
export function ClineSteerBadge({ session }: { session: string }) {
  const { store } = useConsole();
  useStoreAreas('fleet', 'status');
  const events = store.fleet.get(session)?.events ?? [];
  const phase = streamState(events).phase;
  const s = clineSteering({
    ended: phase === 'ended',
    routed: store.roster.accepts(session).includes(sendInputType('cline')),
    hub: hubState(events),
    steeringOn: store.steeringEnabled,
    working: phase === 'working',
  });
  return (
    <span data-testid="cline-steer-badge">
      <Badge tone={s.blocked ? 'warn' : 'accent'} title={s.blocked ?? s.badge}>
        Steering: {s.badge}
      </Badge>
    </span>
  );
}

/** The composer. */
export function ClineComposer({ session }: { session: string }) {
  const { store } = useConsole();
  useStoreAreas('fleet', 'status', 'sessions');
  const [text, setText] = useState('');
  const [choice, setChoice] = useState<ClineDelivery>('now');
  const events = store.fleet.get(session)?.events ?? [];
  const phase = streamState(events).phase;
  const routed = store.roster.accepts(session).includes(sendInputType('cline'));
  const { blocked } = clineSteering({
    ended: phase === 'ended',
    routed,
    hub: hubState(events),
    steeringOn: store.steeringEnabled,
    working: phase === 'working',
  });
  const chosen = OPTIONS.find((o) => o.delivery === choice) ?? OPTIONS[0];
  const canSend = !blocked && text.trim().length > 0 && text.length <= MAX_INPUT_CHARS;
  const send = () => {
    if (!canSend) return;
    store.sendCommand(
      {
        type: sendInputType('cline'),
        session,
        capture: 'redacted',
        data: { text: text.trim(), delivery: chosen.delivery },
      },
      text.trim(),
    );
    setText('');
  };
  return (
    <form
      className="composer"
      aria-label="Send a message"
      data-testid="cline-composer"
      onSubmit={(e) => (e.preventDefault(), send())}
    >
      <label className="composer-label" htmlFor="cline-text">
        Message this Cline session
      </label>
      {!blocked ? (
        <div className="segmented composer-modes" role="radiogroup" aria-label="How to deliver it">
          {OPTIONS.map((o) => (
            <button
              key={o.delivery}
              type="button"
              role="radio"
              aria-checked={o.delivery === chosen.delivery}
              onClick={() => setChoice(o.delivery)}
              data-testid={`mode-${o.delivery}`}
            >
              {o.label}
            </button>
          ))}
        </div>
      ) : null}
      <textarea
        id="cline-text"
        className="input composer-text"
        data-testid="launched-text"
        rows={3}
        value={text}
        disabled={!!blocked}
        onChange={(e) => setText(e.target.value)}
        aria-describedby="cline-says"
      />
      <p
        id="cline-says"
        className={`small ${blocked ? 'composer-blocked' : 'muted'}`}
        data-testid="composer-says"
        aria-live="polite"
      >
        {blocked ?? chosen.says}
      </p>
      <div className="composer-foot">
        <span />
        <button
          type="submit"
          className="btn btn-primary"
          disabled={!canSend}
          data-testid="launched-send"
        >
          {blocked ? 'Send' : chosen.label}
        </button>
      </div>
    </form>
  );
}
