/**
 * Prompt admission for launched sessions, pure. A steer is admitted only while the session's
 * foreground turn is generating, dispatched and live; only when nothing is queued ahead of it
 * (order is preserved); at most one steer in flight per session (a second queues); synthetic
 * prompts the companion sends itself are never steers and never consume one. A steer that finds
 * the turn admitted-but-not-dispatched (or gone) degrades to an ordinary prompt in submission
 * order: it is never bound to a turn that is not live.
 */
import type { Delivery, InputOutcome, SteerMechanism } from '../../../../common/agent-inputs';
import { steerInFlight, type SessionSteerState } from '../../../../common/input-lifecycle';

/**
 * The foreground turn as the turn controller sees it: `idle` (no turn), `admitted` (a prompt was
 * accepted but not yet written to the agent), `dispatched` (written; the agent is generating),
 * `cancelling` (a cancel was sent; the turn has not settled yet).
 */
export type TurnPhase = 'idle' | 'admitted' | 'dispatched' | 'cancelling';

/** Everything admission looks at. */
export interface AdmissionInput {
  readonly delivery: Delivery;
  /** Sent by the companion itself (never a steer). */
  readonly synthetic: boolean;
  /** The live connection to the agent. */
  readonly connected: boolean;
  readonly mechanism: SteerMechanism;
  /** The kill switch `features.steering`. */
  readonly steeringOn: boolean;
  /** `features.midTurnSteering` as in force (setting or the host's override). */
  readonly midTurnOn: boolean;
  readonly turn: TurnPhase;
  /** Messages of this session queued ahead (not yet sent). */
  readonly queuedAhead: number;
  readonly steer: SessionSteerState;
}

/** What to do with the message. `outcome` is what a message sent this way settles as. */
export type Admission =
  /** write it now as an ordinary prompt */
  | { readonly action: 'prompt'; readonly outcome: InputOutcome; readonly reason: string }
  /** hold it; it is sent as an ordinary prompt in order when the session can take it */
  | { readonly action: 'queue'; readonly outcome: InputOutcome; readonly reason: string }
  /** steer the running turn with the negotiated primitive */
  | {
      readonly action: 'steer';
      readonly mechanism: Exclude<SteerMechanism, 'none'>;
      readonly reason: string;
    }
  /** cancel the running turn, then send it first as an ordinary prompt */
  | {
      readonly action: 'cancel-then-prompt';
      readonly outcome: InputOutcome;
      readonly reason: string;
    }
  | { readonly action: 'refuse'; readonly code: 'not-live'; readonly reason: string };

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/** Why a generating session cannot take a steer right now, or null when it can. */
export function steerBlocker(input: AdmissionInput): string | null {
  if (!input.steeringOn) return 'steering is off (kill switch)';
  if (!input.midTurnOn) return 'mid-turn steering is off';
  if (input.mechanism === 'none') return 'the agent advertised no mid-turn input';
  if (input.queuedAhead > 0) return `${plural(input.queuedAhead, 'message')} queued ahead`;
  if (steerInFlight(input.steer)) return 'a steer is already in flight';
  return null;
}

/** Decides what happens to one submitted message. */
export function admit(input: AdmissionInput): Admission {
  if (!input.connected)
    return { action: 'refuse', code: 'not-live', reason: 'the agent is not connected' };
  const idle = input.turn === 'idle';
  const free = idle && input.queuedAhead === 0;
  if (input.synthetic) {
    return free
      ? { action: 'prompt', outcome: 'prompted', reason: 'session idle' }
      : { action: 'queue', outcome: 'prompted', reason: 'waits for the owning prompt' };
  }
  switch (input.delivery) {
    case 'queue':
      return free
        ? { action: 'prompt', outcome: 'prompted', reason: 'session idle' }
        : {
            action: 'queue',
            outcome: 'prompted',
            reason: idle ? 'behind queued messages' : 'next turn',
          };
    case 'stop':
      return idle
        ? { action: 'prompt', outcome: 'prompted', reason: 'session idle' }
        : { action: 'cancel-then-prompt', outcome: 'prompted', reason: 'stop and send' };
    case 'now': {
      if (free) return { action: 'prompt', outcome: 'prompted', reason: 'session idle' };
      if (idle) return { action: 'queue', outcome: 'prompted', reason: 'behind queued messages' };
      if (input.turn !== 'dispatched') {
        // A steer must attach to a live, dispatched turn; one admitted but not yet written (or being
        // cancelled) is not live: an ordinary prompt in submission order.
        return {
          action: 'queue',
          outcome: steerBlocker(input) === null ? 'degraded' : 'prompted',
          reason:
            input.turn === 'admitted'
              ? 'the running turn is not dispatched yet'
              : 'the running turn is being cancelled',
        };
      }
      const blocker = steerBlocker(input);
      if (blocker !== null) return { action: 'queue', outcome: 'prompted', reason: blocker };
      return {
        action: 'steer',
        mechanism: input.mechanism as Exclude<SteerMechanism, 'none'>,
        reason: 'the turn is generating',
      };
    }
  }
}
