/**
 * The per-session turn controller: every input to a launched session (the first prompt of a
 * launch, `x.{agent}.control.send_input`, the CLI's `prompt`) passes through `submit`, and nothing
 * else writes a prompt to the agent.
 *
 * CONTRACT
 * - `submit(input)` asks the policy port `DeliveryPolicy.decide(input, snapshot)` for exactly one
 *   of `dispatch` (write it to the agent now as a new turn), `queue` (keep it, in submission order,
 *   until the running turn settles) or `steer` (hand it to `TurnPort.steer` while the turn runs).
 *   That call is THE place the decision is made; `submit` returns the decision it applied.
 * - Default policy (`queueWhileGenerating`): dispatch when idle, queue while generating. It never
 *   answers `steer`: mid-turn steering is negotiated per session and built behind this port.
 * - A policy answer the controller cannot honour degrades, never disappears: `dispatch` while
 *   generating, or `steer` without a `TurnPort.steer`, is applied as `queue`.
 * - At most one turn runs at a time. When it settles (any outcome) the oldest queued input is
 *   dispatched; queued inputs are never reordered and never sent twice.
 * - Every queued input is reported once through `TurnPort.queued` (the stream shows it), and, if
 *   it never reaches the agent, once through `TurnPort.dropped` with a reason (`dropAll`).
 * - `TurnPort.startTurn` writes the prompt and resolves when the agent settles the turn; a
 *   rejection counts as settled (the port has already reported the failure).
 * - Mid-turn steering (main/core/launched/steer) plugs in here and nowhere else: `setPolicy` (the
 *   admission rules), `setSteerer` (delivery into the running turn), `setCanceller` (delivery
 *   `stop`: cancel the running turn, then this input goes first), `setObserver` (the durable
 *   record hears every submit, dispatch and drop). A deferred steer the agent runs as its own turn
 *   is `adoptFront`ed (it dispatches next, already in flight); a steer the agent provably never
 *   took is `requeueFront`ed (sent next as an ordinary prompt). Queued inputs can be edited,
 *   reordered or withdrawn until they are dispatched (the pending list).
 * - `pause(cause)` (the operator's Stop) holds the queue: nothing queued is dispatched until
 *   `resume` or the operator's next input, which goes first (idle: dispatched at once). An input
 *   already in flight at the agent (`adoptFront`) is never held.
 */
import { isReorderOf } from '../../../common/order';

/** One input waiting for, or being, a turn. */
export interface TurnInput {
  /** The command id (or a minted id for the launch prompt): the cause of every event about it. */
  readonly id: string;
  readonly text: string;
  /** What the sender asked for; the policy reads it (today only `queue` exists). */
  readonly delivery: string;
  readonly submittedAtMs: number;
  /** True for prompts the companion itself sends (never a steer). */
  readonly synthetic?: boolean;
  /** Who sent it, from where (the durable record and the audit). */
  readonly actor?: string;
  readonly surface?: string;
}

/** What the policy sees when it decides. */
export interface TurnSnapshot {
  /** A turn is running now. */
  readonly generating: boolean;
  /** Inputs queued ahead of this one. */
  readonly queued: number;
}

export type TurnDecision = 'dispatch' | 'queue' | 'steer';

/** THE decision port: dispatch now, queue, or steer. */
export interface DeliveryPolicy {
  decide(input: TurnInput, snapshot: TurnSnapshot): TurnDecision;
}

/** Dispatch when idle, queue while generating (and whenever something is already queued, to keep order). */
export const queueWhileGenerating: DeliveryPolicy = {
  decide: (_input, s) => (s.generating || s.queued > 0 ? 'queue' : 'dispatch'),
};

/** What the controller drives. */
export interface TurnPort {
  /** Writes the prompt as a new turn; resolves when the agent settles it. */
  startTurn(input: TurnInput): Promise<unknown>;
  /** Delivers into the running turn (mid-turn steering); absent until negotiated. */
  readonly steer?: (input: TurnInput) => Promise<unknown>;
  /** The input waits (position 1 = next). */
  queued(input: TurnInput, position: number): void;
  /** The input will never reach the agent. */
  dropped(input: TurnInput, reason: string): void;
}

/** Hears what happens to inputs (the durable record of main/core/launched/steer). */
export interface TurnObserver {
  /** `front`: the input went ahead of everything queued (stop and send, a send that lifts a pause). */
  submitted(input: TurnInput, decision: TurnDecision, front: boolean): void;
  dispatched(input: TurnInput): void;
  dropped(input: TurnInput, reason: string): void;
  /** The queue is held (`cause`: the command that stopped the turn). */
  paused?(cause: string | null): void;
  /** The queue flows again: `by` an explicit resume, or the operator's input `input`. */
  resumed?(by: 'resume' | 'send', input: TurnInput | null): void;
}

/** One session's turn controller. */
export class TurnController {
  private readonly queue: TurnInput[] = [];
  private running: TurnInput | null = null;
  private steerer: ((input: TurnInput) => Promise<unknown>) | null = null;
  private canceller: ((input: TurnInput) => void) | null = null;
  private observer: TurnObserver | null = null;
  private held = false;
  /** Inputs already in flight at the agent (adopted deferred steers): never held by a pause. */
  private readonly adopted = new Set<string>();

  constructor(
    private readonly port: TurnPort,
    private policy: DeliveryPolicy = queueWhileGenerating,
  ) {}

  /** Replaces the policy (the steering feature installs its own). */
  setPolicy(policy: DeliveryPolicy): void {
    this.policy = policy;
  }

  /** Installs mid-turn delivery (used in place of `TurnPort.steer`). */
  setSteerer(steerer: (input: TurnInput) => Promise<unknown>): void {
    this.steerer = steerer;
  }

  /** Installs how delivery `stop` cancels the running turn (the input is the cancel's cause). */
  setCanceller(canceller: (input: TurnInput) => void): void {
    this.canceller = canceller;
  }

  setObserver(observer: TurnObserver): void {
    this.observer = observer;
  }

  get generating(): boolean {
    return this.running !== null;
  }

  get queuedCount(): number {
    return this.queue.length;
  }

  /** The queue is held by a Stop. */
  get paused(): boolean {
    return this.held;
  }

  /** Holds the queue (the operator's Stop); false when it was already held. */
  pause(cause: string | null): boolean {
    if (this.held) return false;
    this.held = true;
    this.observer?.paused?.(cause);
    return true;
  }

  /** Lets the queue flow again; false when it was not held. */
  resume(): boolean {
    if (!this.held) return false;
    this.held = false;
    this.observer?.resumed?.('resume', null);
    if (!this.running) this.next();
    return true;
  }

  /** The inputs waiting, oldest first (a copy). */
  pending(): readonly TurnInput[] {
    return [...this.queue];
  }

  /** Routes one input; returns the decision applied. */
  submit(input: TurnInput): TurnDecision {
    if (this.held && !input.synthetic) {
      // The operator sends while the queue is held: this input goes first, the rest follow it.
      this.held = false;
      this.observer?.resumed?.('send', input);
      if (!this.generating) {
        this.observer?.submitted(input, 'dispatch', true);
        this.run(input);
        return 'dispatch';
      }
      if (input.delivery !== 'stop') {
        // The stopped turn has not settled yet: this input is the next one.
        this.queue.unshift(input);
        this.port.queued(input, 1);
        this.observer?.submitted(input, 'queue', true);
        return 'queue';
      }
    }
    if (input.delivery === 'stop' && this.generating && !input.synthetic) {
      // Stop and send: it goes ahead of everything queued, then the running turn is cancelled.
      this.queue.unshift(input);
      this.port.queued(input, 1);
      this.observer?.submitted(input, 'queue', true);
      this.canceller?.(input);
      return 'queue';
    }
    let decision = this.policy.decide(input, { generating: this.generating, queued: this.queue.length });
    const steer = this.steerer ?? this.port.steer;
    if (decision === 'dispatch' && (this.generating || this.queue.length > 0)) decision = 'queue';
    if (decision === 'steer' && (!steer || !this.generating)) decision = this.generating || this.queue.length > 0 ? 'queue' : 'dispatch';
    this.observer?.submitted(input, decision, false);
    if (decision === 'dispatch') this.run(input);
    else if (decision === 'steer') void (steer as (i: TurnInput) => Promise<unknown>)(input).catch(() => undefined);
    else {
      this.queue.push(input);
      this.port.queued(input, this.queue.length);
    }
    return decision;
  }

  /** A deferred steer already in flight at the agent: it is the next turn (nothing is written again). */
  adoptFront(input: TurnInput): void {
    this.adopted.add(input.id);
    this.queue.unshift(input);
    if (!this.running) this.next();
  }

  /** A steer the agent provably never took: sent next as an ordinary prompt. */
  requeueFront(input: TurnInput): void {
    this.queue.unshift(input);
    this.port.queued(input, 1);
    if (!this.running) this.next();
  }

  /** Replaces a queued input's text; false once it was dispatched (or never queued). */
  edit(id: string, text: string): boolean {
    const at = this.queue.findIndex((q) => q.id === id);
    if (at < 0) return false;
    this.queue[at] = { ...this.queue[at], text };
    return true;
  }

  /** Reorders the queue; `order` must name every queued input exactly once. */
  reorder(order: readonly string[]): boolean {
    const byId = new Map(this.queue.map((q) => [q.id, q] as const));
    if (!isReorderOf(order, byId)) return false;
    this.queue.splice(0, this.queue.length, ...order.map((id) => byId.get(id) as TurnInput));
    return true;
  }

  /** Withdraws a queued input before it is dispatched; false when it is not queued. */
  withdraw(id: string, reason = 'withdrawn'): boolean {
    const at = this.queue.findIndex((q) => q.id === id);
    if (at < 0) return false;
    const [input] = this.queue.splice(at, 1);
    this.port.dropped(input, reason);
    this.observer?.dropped(input, reason);
    return true;
  }

  /** Drops every queued input with `reason` (session ended, kill switch off). Returns how many. */
  dropAll(reason: string): number {
    const dropped = this.queue.splice(0, this.queue.length);
    for (const input of dropped) {
      this.port.dropped(input, reason);
      this.observer?.dropped(input, reason);
    }
    return dropped.length;
  }

  private next(): void {
    if (this.held && !(this.queue.length > 0 && this.adopted.has(this.queue[0].id))) return;
    const next = this.queue.shift();
    if (!next) return;
    this.adopted.delete(next.id);
    this.run(next);
  }

  private run(input: TurnInput): void {
    this.running = input;
    const settle = (): void => {
      if (this.running !== input) return;
      this.running = null;
      this.next();
    };
    let started: Promise<unknown>;
    try {
      started = this.port.startTurn(input);
    } catch {
      started = Promise.resolve();
    }
    // After startTurn wrote the prompt and opened its run (the record names the run).
    this.observer?.dispatched(input);
    started.then(settle, settle);
  }
}
