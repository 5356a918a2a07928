/**
 * Settles a command from the stream alone (AEP-0004 §3): the ack and outcome events whose cause
 * is the command id, or a relay refusal frame. Local knowledge adds only two facts the wire
 * cannot state: that we sent it, and that the ack window passed in silence.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { dataNumber, dataString, isDelivered, isDropped } from './event-types';

/** Where one command stands, in the operator's words. */
export type CommandPhase =
  | 'unsent' // never left this window (no connection)
  | 'sent' // on the wire, no answer yet
  | 'timeout' // ack window passed in silence (AEP-0004 §3): not a verdict from the target
  | 'refused' // relay refused on the target's behalf (error frame, cause = command id)
  | 'rejected' // control.rejected
  | 'accepted' // control.accepted, no outcome yet
  | 'delivered' // x.{vendor}.instruction.delivered
  | 'dropped' // x.{vendor}.instruction.dropped
  | 'answered'; // attention.answered for control.attention.respond

/** A settled view of one command. */
export interface Settlement {
  readonly phase: CommandPhase;
  readonly reason?: string;
  readonly detail?: string;
  readonly moment?: string;
  readonly queuedMs?: number;
  readonly at?: string;
}

/** Local facts about a command this window sent. */
export interface LocalCommandFacts {
  readonly sent: boolean;
  readonly timedOut: boolean;
  readonly refusal?: { readonly code: string; readonly detail?: string };
}

/** Derives the phase from caused events (stream) and local facts; stream facts always win. */
export function settle(caused: readonly AepEvent[], local: LocalCommandFacts | null): Settlement {
  let ack: AepEvent | undefined;
  let outcome: AepEvent | undefined;
  for (const e of caused) {
    if (e.type === 'control.accepted' || e.type === 'control.rejected') ack ??= e;
    else if (isDelivered(e.type) || isDropped(e.type) || e.type === 'attention.answered') outcome ??= e;
  }
  if (outcome && isDelivered(outcome.type)) {
    return { phase: 'delivered', moment: dataString(outcome, 'moment'), queuedMs: dataNumber(outcome, 'queued_ms'), at: outcome.time };
  }
  if (outcome && isDropped(outcome.type)) {
    return { phase: 'dropped', reason: dataString(outcome, 'reason'), queuedMs: dataNumber(outcome, 'queued_ms'), at: outcome.time };
  }
  if (outcome && outcome.type === 'attention.answered') {
    const answer = outcome.data?.answer as { option?: unknown; text?: unknown } | undefined;
    const option = typeof answer?.option === 'string' ? answer.option : undefined;
    return { phase: 'answered', reason: option, at: outcome.time };
  }
  if (ack?.type === 'control.rejected') {
    return { phase: 'rejected', reason: dataString(ack, 'reason'), detail: dataString(ack, 'detail'), at: ack.time };
  }
  if (ack?.type === 'control.accepted') return { phase: 'accepted', at: ack.time };
  if (local?.refusal) return { phase: 'refused', reason: local.refusal.code, detail: local.refusal.detail };
  if (local && !local.sent) return { phase: 'unsent' };
  if (local?.timedOut) return { phase: 'timeout' };
  return { phase: 'sent' };
}

/** True when nothing more will change the phase. */
export const isFinal = (phase: CommandPhase): boolean =>
  phase === 'delivered' || phase === 'dropped' || phase === 'rejected' || phase === 'refused' || phase === 'answered' || phase === 'unsent';
