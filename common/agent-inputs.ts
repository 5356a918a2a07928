/**
 * Operator input to launched sessions (mid-turn steering and the pending list): how a message is
 * to be delivered, the lifecycle it goes through, and the outcome it settles with. Shared by the
 * core (SQLite rows, stream events, /api) and the console (composer, pending list, chips).
 */

/** How the operator asks a message to be delivered. */
export const DELIVERIES = ['now', 'queue', 'stop'] as const;
/** `now`: steer the running turn when the session can, else queue; `queue`: next turn; `stop`: cancel, then prompt. */
export type Delivery = (typeof DELIVERIES)[number];

export const isDelivery = (value: unknown): value is Delivery =>
  typeof value === 'string' && (DELIVERIES as readonly string[]).includes(value);

/**
 * Where a message is in its life. `queued`: held by the companion, editable and withdrawable;
 * `sent`: written to the agent, not yet settled; `settled`: it has an outcome.
 */
export type InputState = 'queued' | 'sent' | 'settled';

/**
 * The settled outcome (the spec's taxonomy, plus the companion's own terminal cases):
 * - `steered`: the agent took it into the running turn;
 * - `deferred`: the agent accepted it but ran it as its own next turn (shown as queued);
 * - `degraded`: it provably never reached the agent as a steer and ran as an ordinary prompt;
 * - `prompted`: delivered as an ordinary prompt (the session was idle, or it waited its turn);
 * - `errored`: the write or its acknowledgement failed ambiguously; never re-sent;
 * - `cancelled`: the turn it belonged to was cancelled;
 * - `failed`: the agent died or failed the turn;
 * - `dropped`: never sent (withdrawn, session ended or replaced, kill switch, restart).
 * - `interrupted`: caught `sent` by a daemon restart; delivery cannot be ruled in or out; never re-sent.
 */
export const INPUT_OUTCOMES = [
  'steered',
  'deferred',
  'degraded',
  'prompted',
  'errored',
  'cancelled',
  'failed',
  'dropped',
  'interrupted',
] as const;
export type InputOutcome = (typeof INPUT_OUTCOMES)[number];

/** Why a message was dropped (never sent). */
export type InputDropReason =
  | 'withdrawn'
  | 'session-ended'
  | 'session-replaced'
  | 'session-not-resumed'
  | 'steering-disabled'
  | 'daemon-restart';

/** The steer primitive an agent negotiated (see main/core/launched/steer/capability.ts). */
export type SteerMechanism = 'concurrent-prompt' | 'session-steering' | 'turn-steer' | 'none';

/** The session's badge: what a message sent while it generates will do. */
export type SteerMode = 'mid-turn' | 'next-turn' | 'queue-only';

/** `supports_steering` and its badge, derived at serialization, never stored. */
export interface SteerSupport {
  readonly supports_steering: boolean;
  readonly mode: SteerMode;
  /** The badge in words: "delivered now", "next turn" or "queue only". */
  readonly badge: string;
  /** Why the mode is what it is, in words. */
  readonly reason: string;
  readonly mechanism: SteerMechanism;
}

/** One message of a launched session as the pending list and history show it. */
export interface AgentInputRecord {
  readonly commandId: string;
  readonly session: string;
  readonly agent: string;
  readonly delivery: Delivery;
  readonly state: InputState;
  readonly outcome: InputOutcome | null;
  readonly reason: string | null;
  /** Queue position among the session's queued messages (0 = next); null once sent. */
  readonly position: number | null;
  /** The text (redacted-class; only served to the operator). */
  readonly text: string;
  readonly queuedAt: string;
  readonly sentAt: string | null;
  readonly settledAt: string | null;
  /** The run the message belongs to (its own, or the one it was folded into). */
  readonly run: string | null;
  /** The JSON-RPC id of the request that carried it to the agent. */
  readonly rpcId: string | null;
  readonly mechanism: SteerMechanism | null;
  readonly edits: number;
  /** When the agent showed it took a steer in (the seen-by-agent receipt), or null. */
  readonly receivedAt?: string | null;
}

/** Emitted (cause = the command) once per message when it settles: its outcome (no free text). */
export const inputSettledType = (agent: string): string => `x.${agent}.input.settled`;

/** Payload of `x.{agent}.input.settled` (cause = the command id): no free text. */
export interface InputSettledData {
  readonly outcome: InputOutcome;
  readonly delivery: Delivery;
  readonly mechanism?: SteerMechanism;
  readonly reason?: string;
  readonly run?: string;
}

/**
 * Emitted (cause = the command) when the agent itself showed that it took a steered message into
 * the running turn (Codex app-server: the `userMessage` item on the steered turn): "seen by agent".
 */
export const inputReceivedType = (agent: string): string => `x.${agent}.input.received`;

/** Payload of `x.{agent}.input.received` (cause = the command id): no free text. */
export interface InputReceivedData {
  /** The command id of the message. */
  readonly input: string;
  /** The agent's turn that took it in. */
  readonly turn: string;
  /** The agent's own id of the item that carries it, when it gave one. */
  readonly item?: string;
  readonly mechanism: SteerMechanism;
}

/** Payload of `x.{agent}.input.queued` (cause = the command id): no free text. */
export interface InputQueuedData {
  readonly delivery: Delivery;
  readonly position: number;
  readonly reason?: string;
}

/** The words `prompt --wait` prints on its last line. */
export type WaitWord = 'steered' | 'deferred' | 'degraded' | 'errored' | 'queued' | 'dropped';

/** Outcome → the CLI's `--wait` word (README: `prompt --wait`). */
export const WAIT_WORD: Readonly<Record<InputOutcome, WaitWord>> = {
  steered: 'steered',
  deferred: 'deferred',
  degraded: 'degraded',
  prompted: 'queued',
  errored: 'errored',
  interrupted: 'errored',
  failed: 'errored',
  cancelled: 'dropped',
  dropped: 'dropped',
};

/** The exit code per `--wait` word (3 refused and 4 no answer are shared with `instruct`). */
export const WAIT_EXIT: Readonly<Record<WaitWord, number>> = {
  steered: 0,
  deferred: 10,
  degraded: 11,
  queued: 12,
  errored: 13,
  dropped: 5,
};

/** One message waiting to be sent: a launched session's queued input, or a hook-path instruction. */
export interface PendingItem {
  /** `input`: a launched session's queued message; `instruction`: a hook-path `instruct` waiting for a hook. */
  readonly kind: 'input' | 'instruction';
  readonly commandId: string;
  readonly session: string;
  /** 0 = next. */
  readonly position: number;
  readonly text: string;
  /** How it was asked to be delivered (`instruct` for the hook path). */
  readonly delivery: Delivery | 'instruct';
  readonly queuedAt: string;
  readonly edits: number;
}

/** `GET /api/pending`: everything a session still holds, next first, and what its composer may offer. */
export interface PendingList {
  readonly session: string;
  readonly items: readonly PendingItem[];
  /** The launched session's steer support and badge (null for an observed session). */
  readonly support: SteerSupport | null;
  /** Held by the operator's Stop until resumed or the next send (null: the queue flows). */
  readonly paused?: QueueHold | null;
}

/** A queue held by the operator's Stop. */
export interface QueueHold {
  readonly since: string;
  /** The command that stopped the turn, when known. */
  readonly cause: string | null;
}

/**
 * Queue changes on the stream (cause = the command they change): a queued message's new text
 * (redacted-class, gated like the command's own text), the new order after a reorder (command
 * ids, next first; cause = the message the operator moved), and the hold of a Stop and its end
 * (cause = the stopping command, or the input that lifted it).
 */
export const inputEditedType = (agent: string): string => `x.${agent}.input.edited`;
export const inputReorderedType = (agent: string): string => `x.${agent}.input.reordered`;
export const queuePausedType = (agent: string): string => `x.${agent}.input.queue_paused`;
export const queueResumedType = (agent: string): string => `x.${agent}.input.queue_resumed`;

/** The mid-turn steering toggle as `GET/PUT /api/mid-turn-steering` serve it. */
export interface MidTurnSteeringState {
  /** In force now: the setting (or the host's override) and the kill switch. */
  readonly enabled: boolean;
  readonly setting: boolean;
  /** The host's environment override, or null. */
  readonly override: boolean | null;
  /** The kill switch `features.steering`. */
  readonly steering: boolean;
}
