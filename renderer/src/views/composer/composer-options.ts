/**
 * What the composer may offer a launched session per message, honestly: only what the session
 * can do now, each with the sentence it shows before sending. Pure, from the session's live
 * state, its negotiated steer support (derived by the daemon, never guessed here) and whether
 * the relay routes its input verb right now.
 */
import type { Delivery, SteerSupport } from '../../../../common/agent-inputs';
import type { LaunchedState } from '../../../../common/agents';

/** One offered way to send. */
export interface SendOption {
  readonly delivery: Delivery;
  readonly label: string;
  /** What will happen, said before sending. */
  readonly says: string;
}

/** The session facts the choice depends on. */
export interface ComposerFacts {
  readonly state: LaunchedState;
  readonly support: SteerSupport | null;
  /** The relay routes `x.{agent}.control.send_input` to the session now (live roster). */
  readonly routed: boolean;
  /** The kill switch (`features.steering`). */
  readonly steeringOn: boolean | null;
  /** The queue is held by the operator's Stop: how many messages it holds (absent or null: it flows). */
  readonly held?: number | null;
}

/** Why nothing can be sent, or null when something can. */
export function blockedReason(f: ComposerFacts): string | null {
  if (f.state === 'ended') return 'The session has ended; nothing can reach it any more.';
  if (f.state === 'resumable') return 'The agent is not connected (it went away, or the daemon restarted); Resume session loads it again, then you can send.';
  if (f.state === 'starting') return 'The agent is still starting; wait for the session to be ready.';
  if (!f.routed) return 'The relay holds no route to this session right now (its agent is not connected).';
  return null;
}

/** The options, the first being the default. */
export function sendOptions(f: ComposerFacts): SendOption[] {
  if (blockedReason(f)) return [];
  const held = f.held ?? null;
  if (held !== null) {
    // The daemon sends the operator's next message ahead of the held queue and lifts the hold.
    const rest = held === 0 ? '' : `; the ${held} held message${held === 1 ? '' : 's'} follow${held === 1 ? 's' : ''} it`;
    if (f.state !== 'generating') {
      return [{ delivery: 'queue', label: 'Send', says: `The queue is held by Stop: this goes first, starts the next turn now and lifts the hold${rest}.` }];
    }
    // The stopped turn is still ending: nothing joins it, so no Send now.
    return [
      { delivery: 'queue', label: 'Send next', says: `The queue is held by Stop: this goes first, as soon as the stopped turn ends, and lifts the hold${rest}.` },
      { delivery: 'stop', label: 'Stop and send', says: 'Cancels the running turn (its work so far stays), then sends this as the next prompt and lifts the hold.' },
    ];
  }
  if (f.state !== 'generating') {
    return [{ delivery: 'queue', label: 'Send', says: 'The agent is idle: this starts its next turn now.' }];
  }
  const options: SendOption[] = [];
  if (f.support?.supports_steering) {
    options.push({ delivery: 'now', label: 'Send now', says: 'Goes to the agent now. The agent decides whether it joins the running turn or runs next, right after it; either way nothing is lost.' });
  }
  options.push({
    delivery: 'queue',
    label: 'Queue',
    says: f.support && !f.support.supports_steering ? `Queued for the next turn (${f.support.badge}: ${f.support.reason}). You can edit or withdraw it until then.` : 'Queued for the next turn; you can edit or withdraw it until then.',
  });
  options.push({ delivery: 'stop', label: 'Stop and send', says: 'Cancels the running turn (its work so far stays), then sends this as the next prompt.' });
  return options;
}
