/**
 * Outcomes of the native steer primitives, read from the wire answer, pure:
 * - Codex app-server `turn/steer { threadId, expectedTurnId, input }`: the same turn id back is
 *   Steered (accepted into that turn); the `userMessage` item that later appears on that turn with
 *   the steer's text is the seen-by-agent receipt; `-32600` (no active turn, wrong turn id) proves
 *   it was not taken: Degraded, sent as an ordinary prompt in order.
 * - ACP `_session/steering` (sent with `idleBehavior: promptRequired`): `injected` is Steered;
 *   `promptRequired` proves it was not taken: Degraded.
 * Anything else the agent answers after the request was written is Errored and never re-sent.
 */
import type { InputOutcome } from '../../../../common/agent-inputs';
import { REFUSAL_CODES } from './classifier';

/** The answer to a steer request as the connection saw it. */
export type SteerAnswer =
  | { readonly kind: 'result'; readonly result: unknown }
  | { readonly kind: 'error'; readonly code: number; readonly message: string }
  /** no answer: the write failed (`written` false only when provably no byte reached the agent) or the connection dropped */
  | { readonly kind: 'transport'; readonly written: boolean; readonly message: string };

/** The classified outcome; `requeue` only when the steer provably never reached the agent. */
export interface NativeOutcome {
  readonly outcome: InputOutcome;
  readonly reason: string;
  readonly requeue: boolean;
  /** For Steered: the turn the agent bound it to. */
  readonly turnId?: string;
}

const own = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;

function transportOutcome(answer: Extract<SteerAnswer, { kind: 'transport' }>): NativeOutcome {
  return answer.written
    ? {
        outcome: 'errored',
        reason: `the steer may have reached the agent (${answer.message}); not re-sent`,
        requeue: false,
      }
    : {
        outcome: 'degraded',
        reason: `the steer never reached the agent (${answer.message})`,
        requeue: true,
      };
}

/** Classifies the answer to Codex `turn/steer` sent with `expectedTurnId`. */
export function classifyTurnSteer(expectedTurnId: string, answer: SteerAnswer): NativeOutcome {
  if (answer.kind === 'transport') return transportOutcome(answer);
  if (answer.kind === 'error') {
    return answer.code === -32600
      ? { outcome: 'degraded', reason: `no live turn to steer: ${answer.message}`, requeue: true }
      : {
          outcome: 'errored',
          reason: `turn/steer failed (${answer.code}: ${answer.message}); not re-sent`,
          requeue: false,
        };
  }
  const turnId = own(answer.result, 'turnId');
  if (turnId === expectedTurnId) {
    return {
      outcome: 'steered',
      reason: 'the agent accepted it into the running turn',
      requeue: false,
      turnId,
    };
  }
  return {
    outcome: 'errored',
    reason: `turn/steer answered turn ${JSON.stringify(turnId)} instead of ${expectedTurnId}; not re-sent`,
    requeue: false,
  };
}

/** The text of a Codex `userMessage` item's content (text parts joined), or null. */
export function userMessageText(item: unknown): string | null {
  if (own(item, 'type') !== 'userMessage') return null;
  const content = own(item, 'content');
  if (!Array.isArray(content)) return null;
  return content
    .filter((part) => own(part, 'type') === 'text' && typeof own(part, 'text') === 'string')
    .map((part) => own(part, 'text') as string)
    .join('');
}

/**
 * True when an app-server notification is the seen-by-agent receipt of a steer: `item/started`
 * (or `item/completed`) carrying a `userMessage` item on the steered turn with the steer's text.
 */
export function isSteerReceipt(notification: unknown, turnId: string, text: string): boolean {
  const method = own(notification, 'method');
  if (method !== 'item/started' && method !== 'item/completed') return false;
  const params = own(notification, 'params');
  return own(params, 'turnId') === turnId && userMessageText(own(params, 'item')) === text;
}

/** Classifies the answer to ACP `_session/steering` (sent with `idleBehavior: promptRequired`). */
export function classifySessionSteering(answer: SteerAnswer): NativeOutcome {
  if (answer.kind === 'transport') return transportOutcome(answer);
  if (answer.kind === 'error') {
    return REFUSAL_CODES.has(answer.code)
      ? {
          outcome: 'degraded',
          reason: `the agent refused _session/steering (${answer.code}: ${answer.message})`,
          requeue: true,
        }
      : {
          outcome: 'errored',
          reason: `_session/steering failed (${answer.code}: ${answer.message}); not re-sent`,
          requeue: false,
        };
  }
  const result = own(answer.result, 'outcome');
  if (result === 'injected')
    return {
      outcome: 'steered',
      reason: 'the agent injected it into the running turn',
      requeue: false,
    };
  if (result === 'promptRequired') {
    return {
      outcome: 'degraded',
      reason: `no running turn (${String(own(answer.result, 'reason') ?? 'promptRequired')})`,
      requeue: true,
    };
  }
  if (result === 'startedNewTurn')
    return { outcome: 'deferred', reason: 'the agent ran it as its own turn', requeue: false };
  return {
    outcome: 'errored',
    reason: `unknown _session/steering answer ${JSON.stringify(result)}; not re-sent`,
    requeue: false,
  };
}
