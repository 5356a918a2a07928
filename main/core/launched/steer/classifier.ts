/**
 * The outcome classifier for a concurrent-prompt steer (ACP `promptQueueing`), pure: a reducer over
 * what the wire shows for one session's prompts, returning the new state and the effects the turn
 * controller applies (AEP run events, usage, the steer's outcome).
 *
 * The rule is read from the wire, never from text: a prompt that settles `end_turn` with an
 * all-zero `usage` while another prompt of the session is still outstanding handed its turn to
 * that prompt (the fold). Its settlement is suppressed: no completion, no cleanup of live tool
 * calls, no usage, and the run stays open under the prompt still outstanding, which finishes it
 * once with the usage it reports. A prompt that settles with its own answer (non-zero or absent
 * usage, or another stop reason) while a steer is outstanding finishes its own run, and the steer
 * is deferred: it opens its own run, so both answers appear in submission order. Counting text
 * chunks instead misclassifies (a warning chunk can arrive before the fold).
 */
import type { InputOutcome } from '../../../../common/agent-inputs';
import { isZeroUsage, type Usage } from './usage';

/** A JSON-RPC id as the turn controller keys prompts (numbers and strings kept apart). */
export type RpcKey = string;

/** One prompt in flight. */
export interface Slot {
  readonly rpc: RpcKey;
  /** The run this prompt's settlement belongs to (a steer starts on its predecessor's run). */
  readonly run: string;
  /** The run it opens if it becomes its own turn (deferred). */
  readonly ownRun: string;
  /** Set for an operator steer: its command id. */
  readonly commandId: string | null;
  /** True while the steer's outcome is not yet known. */
  readonly pending: boolean;
  /** Its run already ended (cancelled); its own settlement is only drained. */
  readonly draining: boolean;
}

export interface ClassifierState {
  /** Outstanding prompts in send order. */
  readonly slots: readonly Slot[];
  /** A cancel was sent: every outstanding prompt ends as cancelled. */
  readonly cancelling: boolean;
}

export const INITIAL: ClassifierState = { slots: [], cancelling: false };

/** What the wire showed. */
export type WireObservation =
  /** an ordinary prompt was written; it opens `run` */
  | { readonly kind: 'prompt-sent'; readonly rpc: RpcKey; readonly run: string }
  /** an operator steer was written as a concurrent `session/prompt` */
  | {
      readonly kind: 'steer-sent';
      readonly rpc: RpcKey;
      readonly commandId: string;
      readonly ownRun: string;
    }
  /** a prompt's JSON-RPC result */
  | {
      readonly kind: 'settled';
      readonly rpc: RpcKey;
      readonly stopReason: string;
      readonly usage: Usage | null;
    }
  /** a prompt's JSON-RPC error response */
  | {
      readonly kind: 'rejected';
      readonly rpc: RpcKey;
      readonly code: number;
      readonly message: string;
    }
  /** writing the steer failed; `written` false only when provably no byte reached the agent */
  | {
      readonly kind: 'write-failed';
      readonly rpc: RpcKey;
      readonly written: boolean;
      readonly message: string;
    }
  | { readonly kind: 'cancel-sent' }
  | { readonly kind: 'connection-lost'; readonly reason: string };

/** What the turn controller does. */
export type Effect =
  | {
      readonly kind: 'run-started';
      readonly run: string;
      readonly rpc: RpcKey;
      readonly commandId: string | null;
    }
  | { readonly kind: 'run-finished'; readonly run: string; readonly stopReason: string }
  | { readonly kind: 'run-cancelled'; readonly run: string }
  | { readonly kind: 'run-failed'; readonly run: string; readonly reason: string }
  /** an early settlement: emit nothing, sweep nothing, count nothing */
  | { readonly kind: 'suppressed'; readonly rpc: RpcKey; readonly why: string }
  /** usage the agent reported on `rpc`, counted once toward `run` */
  | { readonly kind: 'usage'; readonly rpc: RpcKey; readonly run: string; readonly usage: Usage }
  | {
      readonly kind: 'outcome';
      readonly commandId: string;
      readonly outcome: InputOutcome;
      readonly reason: string;
      readonly run: string | null;
    }
  /** send the message again as an ordinary prompt in submission order (only when it provably never ran) */
  | { readonly kind: 'requeue'; readonly commandId: string; readonly reason: string };

export interface Step {
  readonly state: ClassifierState;
  readonly effects: readonly Effect[];
}

/** JSON-RPC codes that prove the agent refused the request before running it. */
export const REFUSAL_CODES: ReadonlySet<number> = new Set([-32600, -32601, -32602]);

const CANCELLED = 'cancelled';

/** Applies one observation. Unknown rpc ids are ignored (effects empty), never thrown on. */
export function reduce(state: ClassifierState, obs: WireObservation): Step {
  switch (obs.kind) {
    case 'prompt-sent': {
      const slot: Slot = {
        rpc: obs.rpc,
        run: obs.run,
        ownRun: obs.run,
        commandId: null,
        pending: false,
        draining: false,
      };
      return {
        state: { ...state, slots: [...state.slots, slot] },
        effects: [{ kind: 'run-started', run: obs.run, rpc: obs.rpc, commandId: null }],
      };
    }
    case 'steer-sent': {
      const host = state.slots.filter((s) => !s.draining).at(-1);
      if (host === undefined) {
        // Nothing in flight to fold into: it is an ordinary prompt (admission never sends one so).
        const slot: Slot = {
          rpc: obs.rpc,
          run: obs.ownRun,
          ownRun: obs.ownRun,
          commandId: obs.commandId,
          pending: false,
          draining: false,
        };
        return {
          state: { ...state, slots: [...state.slots, slot] },
          effects: [
            { kind: 'run-started', run: obs.ownRun, rpc: obs.rpc, commandId: obs.commandId },
            outcome(slot, 'degraded', 'no turn was in flight', obs.ownRun),
          ],
        };
      }
      const slot: Slot = {
        rpc: obs.rpc,
        run: host.run,
        ownRun: obs.ownRun,
        commandId: obs.commandId,
        pending: true,
        draining: false,
      };
      return { state: { ...state, slots: [...state.slots, slot] }, effects: [] };
    }
    case 'settled':
      return settle(state, obs.rpc, obs.stopReason, obs.usage);
    case 'rejected':
      return reject(state, obs.rpc, obs.code, obs.message);
    case 'write-failed':
      return writeFailed(state, obs.rpc, obs.written, obs.message);
    case 'cancel-sent':
      return { state: { ...state, cancelling: true }, effects: [] };
    case 'connection-lost':
      return connectionLost(state, obs.reason);
  }
}

const outcome = (slot: Slot, result: InputOutcome, reason: string, run: string | null): Effect => ({
  kind: 'outcome',
  commandId: slot.commandId as string,
  outcome: result,
  reason,
  run,
});

const without = (state: ClassifierState, rpc: RpcKey): ClassifierState => {
  const slots = state.slots.filter((s) => s.rpc !== rpc);
  return { slots, cancelling: state.cancelling && slots.some((s) => !s.draining) };
};

const update = (
  state: ClassifierState,
  rpcs: ReadonlySet<RpcKey>,
  change: (s: Slot) => Slot,
): ClassifierState => ({
  ...state,
  slots: state.slots.map((s) => (rpcs.has(s.rpc) ? change(s) : s)),
});

/** The steers riding on `slot`'s run become their own turns (deferred), in submission order. */
function detach(
  state: ClassifierState,
  sharing: readonly Slot[],
  reason: string,
  effects: Effect[],
): ClassifierState {
  for (const s of sharing) {
    effects.push({ kind: 'run-started', run: s.ownRun, rpc: s.rpc, commandId: s.commandId });
    if (s.pending) effects.push(outcome(s, 'deferred', reason, s.ownRun));
  }
  return update(state, new Set(sharing.map((s) => s.rpc)), (s) => ({
    ...s,
    run: s.ownRun,
    pending: false,
  }));
}

function settle(
  state: ClassifierState,
  rpc: RpcKey,
  stopReason: string,
  usage: Usage | null,
): Step {
  const slot = state.slots.find((s) => s.rpc === rpc);
  if (!slot) return { state, effects: [] };
  const sharing = state.slots.filter((s) => s.rpc !== rpc && s.run === slot.run && !s.draining);
  const effects: Effect[] = [];
  if (usage !== null && !isZeroUsage(usage))
    effects.push({ kind: 'usage', rpc, run: slot.run, usage });

  if (slot.draining) {
    effects.push({ kind: 'suppressed', rpc, why: 'its run already ended (cancelled)' });
    return { state: without(state, rpc), effects };
  }

  if (stopReason === CANCELLED || state.cancelling) {
    // Cancel during a steer ends both turns at once: the run ends now, the other prompts only drain.
    for (const s of [slot, ...sharing])
      if (s.pending) effects.push(outcome(s, 'cancelled', 'the turn was cancelled', s.run));
    effects.push(
      stopReason === CANCELLED
        ? { kind: 'run-cancelled', run: slot.run }
        : { kind: 'run-finished', run: slot.run, stopReason },
    );
    const rest = update(without(state, rpc), new Set(sharing.map((s) => s.rpc)), (s) => ({
      ...s,
      pending: false,
      draining: true,
    }));
    return { state: rest, effects };
  }

  if (sharing.length > 0 && stopReason === 'end_turn' && isZeroUsage(usage)) {
    // The fold: this settlement handed the turn to the prompt still outstanding on its run.
    effects.push({
      kind: 'suppressed',
      rpc,
      why: 'early settlement of a folded turn (end_turn, zero usage)',
    });
    const next = sharing[0];
    for (const s of [slot, next])
      if (s.pending)
        effects.push(outcome(s, 'steered', 'the agent folded it into the running turn', s.run));
    return {
      state: update(without(state, rpc), new Set([next.rpc]), (s) => ({ ...s, pending: false })),
      effects,
    };
  }

  if (slot.pending)
    effects.push(outcome(slot, 'steered', 'the agent answered it in the running turn', slot.run));
  effects.push(
    stopReason === 'refusal'
      ? { kind: 'run-failed', run: slot.run, reason: 'refusal' }
      : { kind: 'run-finished', run: slot.run, stopReason },
  );
  // With its own answer, the predecessor finished its run: a steer riding on it is deferred.
  const rest = detach(without(state, rpc), sharing, 'the agent ran it as its own turn', effects);
  return { state: rest, effects };
}

function reject(state: ClassifierState, rpc: RpcKey, code: number, message: string): Step {
  const slot = state.slots.find((s) => s.rpc === rpc);
  if (!slot) return { state, effects: [] };
  const sharing = state.slots.filter((s) => s.rpc !== rpc && s.run === slot.run && !s.draining);
  const effects: Effect[] = [];
  if (slot.draining) {
    effects.push({ kind: 'suppressed', rpc, why: 'its run already ended (cancelled)' });
    return { state: without(state, rpc), effects };
  }
  if (slot.pending) {
    if (REFUSAL_CODES.has(code)) {
      // Refused outright, provably never run: reported as queued, runs as the next turn.
      effects.push(
        outcome(slot, 'deferred', `the agent refused a concurrent prompt (${code})`, null),
      );
      effects.push({
        kind: 'requeue',
        commandId: slot.commandId as string,
        reason: 'refused concurrent prompt',
      });
    } else {
      effects.push(
        outcome(
          slot,
          'errored',
          `the agent answered the steer with an error (${code}: ${message}); not re-sent`,
          null,
        ),
      );
    }
    return { state: without(state, rpc), effects };
  }
  effects.push({ kind: 'run-failed', run: slot.run, reason: message });
  // The predecessor failed while a steer rode on its run: the steer continues as its own turn.
  const rest = detach(
    without(state, rpc),
    sharing,
    'the running turn failed; it runs as its own turn',
    effects,
  );
  return { state: rest, effects };
}

function writeFailed(state: ClassifierState, rpc: RpcKey, written: boolean, message: string): Step {
  const slot = state.slots.find((s) => s.rpc === rpc);
  if (!slot || slot.commandId === null) return { state, effects: [] };
  const effects: Effect[] = written
    ? [
        outcome(
          slot,
          'errored',
          `the steer may have reached the agent (${message}); not re-sent`,
          null,
        ),
      ]
    : [
        outcome(slot, 'degraded', `the steer never reached the agent (${message})`, null),
        { kind: 'requeue', commandId: slot.commandId, reason: 'never reached the agent' },
      ];
  return { state: without(state, rpc), effects };
}

function connectionLost(state: ClassifierState, reason: string): Step {
  const effects: Effect[] = [];
  const runs = new Set<string>();
  for (const slot of state.slots) {
    if (slot.pending)
      effects.push(outcome(slot, 'failed', `the agent connection ended: ${reason}`, slot.run));
    if (!runs.has(slot.run)) {
      runs.add(slot.run);
      effects.push({ kind: 'run-failed', run: slot.run, reason });
    }
  }
  return { state: INITIAL, effects };
}
