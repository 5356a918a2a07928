/**
 * The steer lifecycle as two pure transition tables.
 *
 * `SESSION_STEER` is the per-session machine of the steering design (none → offered → sent →
 * folded | deferred → none), extended with the ways a steer ends without success: degraded (it
 * provably never reached the agent), errored (ambiguous write or acknowledgement), cancelled,
 * connection lost, session replaced. It lives in memory beside the live connection.
 *
 * `INPUT` is the durable lifecycle of one operator message (SQLite `agent_inputs`): queued →
 * sent → settled with one outcome, or queued → settled `dropped`; a sent steer the agent provably
 * never took (refused, no live turn) goes back to the head of the queue and is sent once more as an
 * ordinary prompt. A settled row never moves again; nothing that may have reached the agent is re-sent.
 */
import type { InputOutcome, InputState } from './agent-inputs';
import { err, ok, type Result } from './result';

/** The per-session steer state. */
export type SessionSteerState = 'none' | 'offered' | 'sent' | 'folded' | 'deferred';

/** What happens to a session's steer. */
export type SessionSteerEvent =
  /** capability + toggle + generating became true */
  | 'offer'
  /** one of them became false */
  | 'retract'
  /** the operator's steer was written to the agent */
  | 'submit'
  /** the agent took it into the running turn (early zero-usage settlement, or a native receipt) */
  | 'fold'
  /** the agent ran it as its own turn */
  | 'defer'
  /** it provably never reached the agent as a steer: ordinary prompt in submission order */
  | 'degrade'
  /** the write or its acknowledgement failed ambiguously */
  | 'error'
  /** the successor turn (the one carrying the steer) settled */
  | 'successor-settled'
  | 'cancel'
  | 'connection-lost'
  | 'replaced';

const ENDS: Partial<Record<SessionSteerEvent, SessionSteerState>> = {
  cancel: 'none',
  'connection-lost': 'none',
  replaced: 'none',
};

/** state → event → next state; a missing entry is an illegal transition. */
export const SESSION_STEER: Readonly<
  Record<SessionSteerState, Partial<Record<SessionSteerEvent, SessionSteerState>>>
> = {
  none: { offer: 'offered', retract: 'none', ...ENDS },
  offered: { offer: 'offered', retract: 'none', submit: 'sent', ...ENDS },
  sent: { fold: 'folded', defer: 'deferred', degrade: 'none', error: 'none', ...ENDS },
  folded: { 'successor-settled': 'none', ...ENDS },
  deferred: { 'successor-settled': 'none', ...ENDS },
};

/** The next session steer state, or an error naming the illegal step. */
export function stepSession(
  state: SessionSteerState,
  event: SessionSteerEvent,
): Result<SessionSteerState, 'illegal-transition'> {
  const next = SESSION_STEER[state][event];
  return next === undefined
    ? err('illegal-transition', `steer: '${event}' is not allowed in state '${state}'`)
    : ok(next);
}

/** True while a steer is outstanding (written, outcome not yet known): a second steer queues. */
export const steerInFlight = (state: SessionSteerState): boolean => state === 'sent';

/** What happens to one durable message. */
export type InputEvent =
  | { readonly kind: 'edit' }
  | { readonly kind: 'reorder' }
  | { readonly kind: 'send' }
  /** a sent steer provably never ran (refused, no live turn): back to the head of the queue */
  | { readonly kind: 'requeue' }
  | { readonly kind: 'settle'; readonly outcome: InputOutcome }
  | { readonly kind: 'drop' };

/** Outcomes a sent message may settle with (everything but `dropped`: it was sent). */
export const SENT_OUTCOMES: ReadonlySet<InputOutcome> = new Set<InputOutcome>([
  'steered',
  'deferred',
  'degraded',
  'prompted',
  'errored',
  'cancelled',
  'failed',
  'interrupted',
]);

/** The state and outcome after one event. */
export interface InputStep {
  readonly state: InputState;
  readonly outcome: InputOutcome | null;
}

/** The durable table: queued messages can be edited, reordered, sent or dropped; sent ones only settle. */
export function stepInput(
  state: InputState,
  event: InputEvent,
): Result<InputStep, 'illegal-transition'> {
  const illegal = () =>
    err('illegal-transition', `input: '${event.kind}' is not allowed in state '${state}'`);
  switch (state) {
    case 'queued':
      if (event.kind === 'edit' || event.kind === 'reorder')
        return ok({ state: 'queued', outcome: null });
      if (event.kind === 'send') return ok({ state: 'sent', outcome: null });
      if (event.kind === 'drop') return ok({ state: 'settled', outcome: 'dropped' });
      return illegal();
    case 'sent':
      if (event.kind === 'requeue') return ok({ state: 'queued', outcome: null });
      if (event.kind === 'settle' && SENT_OUTCOMES.has(event.outcome)) {
        return ok({ state: 'settled', outcome: event.outcome });
      }
      return illegal();
    case 'settled':
      return illegal();
  }
}
