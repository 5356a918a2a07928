/**
 * Mid-turn steering of one launched session, behind its turn controller's ports: the admission
 * policy, the steerer (delivery into the running turn through the steering driver), the canceller
 * of delivery `stop`, and the observer that keeps the durable record (`agent_inputs`). Every
 * message ends with exactly one `x.{agent}.input.settled` event (cause = the command), one audit
 * row and its SQLite row; an admission that did not steer a `now` message says why
 * (`x.{agent}.input.admitted`).
 */
import {
  inputEditedType,
  inputReceivedType,
  inputReorderedType,
  inputSettledType,
  queuePausedType,
  queueResumedType,
  isDelivery,
  type Delivery,
  type InputOutcome,
  type SteerSupport,
} from '../../../../common/agent-inputs';
import type { AgentId } from '../../../../common/agents';
import type { Surface } from '../../../../common/audit';
import type { QueuePausesRepo } from '../../store/queue-pauses-repo';
import type { Gate } from '../../vendors/capture-gate';
import type { AgentInputsRepo } from '../../store/inputs-repo';
import type { AuditSink, EventDraft } from '../../steering/steering-types';
import type { LaunchedSession } from '../launched-session';
import type { TurnDecision, TurnInput } from '../turn-controller';
import { admit, type Admission } from './admission';
import { stepSession, type SessionSteerEvent, type SessionSteerState } from '../../../../common/input-lifecycle';
import type { SteeringDriver } from './steer-driver';
import { editedDraft, holdDraft } from './queue-drafts';
import { deriveSupport } from './supports';

/** Runs `fn` after the current I/O (a write just handed to the agent's pipe goes first). */
const later = (fn: () => void): void => {
  setImmediate(fn);
};

export const inputAdmittedType = (agent: string): string => `x.${agent}.input.admitted`;

/** What a session's steering is built from. */
export interface SteerSessionDeps {
  readonly agent: AgentId;
  readonly session: LaunchedSession;
  readonly driver: SteeringDriver;
  readonly repo: AgentInputsRepo;
  readonly audit: AuditSink;
  readonly clock: () => number;
  /** The kill switch `features.steering`. */
  readonly steeringOn: () => boolean;
  /** `features.midTurnSteering` in force. */
  readonly midTurnOn: () => boolean;
  /** Stamps and sends events on the session's ordered chain. */
  readonly emit: (drafts: readonly EventDraft[]) => void;
  /** The command source recorded with each row. */
  readonly source: string;
  /** Queues held by the operator's Stop (durable). */
  readonly pauses: QueuePausesRepo;
  /** The capture gate of an event type under the policy in force now. */
  readonly gate: (type: string) => Gate;
  /** Subscribes to changes of the toggles in force (kill switch included); returns the unsubscribe. */
  readonly onToggle?: (listener: () => void) => () => void;
}

/** The steer lifecycle event a settled steer's outcome is. */
const VERDICT_EVENT: Partial<Record<InputOutcome, SessionSteerEvent>> = {
  steered: 'fold',
  deferred: 'defer',
  errored: 'error',
  failed: 'connection-lost',
  cancelled: 'cancel',
};

const SURFACES = new Set<string>([
  'console',
  'tray',
  'cli',
  'api',
  'hook',
  'daemon',
  'installer',
  'ws',
]);

export class SteerSession {
  private readonly admissions = new Map<string, Admission>();
  private readonly steering = new Map<string, TurnInput>();
  /** The per-session steer machine (lifecycle.ts `SESSION_STEER`): every change is a validated step. */
  private machine: SessionSteerState = 'none';
  /** The run carrying a folded or deferred steer: its end settles the steer. */
  private successorRun: string | null = null;
  private readonly unsubscribe: () => void;

  constructor(private readonly deps: SteerSessionDeps) {
    const { controller } = deps.session;
    deps.session.stateFacts = () => this.stateFacts();
    deps.session.onStateChange = () => this.sessionChanged();
    this.unsubscribe = deps.onToggle?.(() => this.refresh()) ?? (() => undefined);
    controller.setPolicy({
      decide: (input, snapshot) => this.decide(input, snapshot.generating, snapshot.queued),
    });
    controller.setSteerer((input) => this.steer(input));
    controller.setCanceller((input) => void deps.session.cancel(input.id).catch(() => undefined));
    // A hold recorded for this session (a session resumed after a restart) still holds.
    const held = deps.pauses.get(deps.session.session);
    if (held) controller.pause(held.cause);
    controller.setObserver({
      submitted: (input, decision, front) => this.submitted(input, decision, front),
      dispatched: (input) => this.dispatched(input),
      dropped: (input, reason) => this.dropped(input, reason),
      paused: (cause) => this.paused(cause),
      resumed: (by, input) => this.resumed(by, input),
    });
    deps.driver.hooks = { adopt: (commandId) => this.adopt(commandId) };
  }

  /** The per-session steer state of the design, as the machine holds it. */
  get steerState(): SessionSteerState {
    return this.machine;
  }

  /**
   * One step of the steer machine; an illegal step is refused (the state stays) and audited.
   * Every accepted change is pushed on the stream (`x.{agent}.session.state`).
   */
  step(event: SessionSteerEvent): boolean {
    const next = stepSession(this.machine, event);
    if (!next.ok) {
      this.row('input.steer.illegal', '', 'rejected', { state: this.machine, event });
      return false;
    }
    this.machine = next.value;
    if (this.machine === 'none') this.successorRun = null;
    this.deps.session.publishState();
    return true;
  }

  /** Offers or retracts the steer as capability, toggles and the running turn say now; pushes the state. */
  refresh(): void {
    const { session } = this.deps;
    const offer = !session.ended && session.state === 'generating' && this.support().supports_steering;
    if (offer && this.machine === 'none') this.step('offer');
    else if (!offer && this.machine === 'offered') this.step('retract');
    else session.publishState();
  }

  /** Stops listening (the session ended). */
  close(): void {
    this.unsubscribe();
  }

  /** What the pushed session state adds: capability and the steer state. */
  private stateFacts(): Record<string, unknown> {
    const s = this.support();
    return { supports_steering: s.supports_steering, mode: s.mode, mechanism: s.mechanism, badge: s.badge, support_reason: s.reason, steer: this.machine };
  }

  /** The coarse state changed: the connection lost, a successor run ended, or a turn started or ended. */
  private sessionChanged(): void {
    const { session } = this.deps;
    if (session.ended) {
      if (this.machine !== 'none') this.step('connection-lost');
      this.close();
      return;
    }
    const successorEnded = this.successorRun !== null && session.currentRun !== this.successorRun;
    if ((this.machine === 'folded' || this.machine === 'deferred') && successorEnded) {
      this.step(session.lastEnd === 'cancelled' ? 'cancel' : 'successor-settled');
    }
    this.refresh();
  }

  /** supports_steering and the badge, derived now. */
  support(): SteerSupport {
    const { driver, session } = this.deps;
    return deriveSupport({
      connected: !session.ended,
      mechanism: driver.capability.mechanism,
      basis: driver.capability.basis,
      steeringOn: this.deps.steeringOn(),
      midTurnOn: this.deps.midTurnOn(),
      state: session.state === 'resumable' ? 'ended' : session.state,
    });
  }

  private decide(input: TurnInput, generating: boolean, queued: number): TurnDecision {
    const phase = this.deps.driver.phase;
    const admission = admit({
      delivery: isDelivery(input.delivery) ? input.delivery : 'queue',
      synthetic: input.synthetic === true,
      connected: !this.deps.session.ended,
      mechanism: this.deps.driver.capability.mechanism,
      steeringOn: this.deps.steeringOn(),
      midTurnOn: this.deps.midTurnOn(),
      turn: generating ? (phase === 'idle' ? 'admitted' : phase) : 'idle',
      queuedAhead: queued,
      // A steer whose successor turn still runs (folded, deferred) is outstanding like a sent one.
      steer: this.machine === 'folded' || this.machine === 'deferred' ? 'sent' : this.machine,
    });
    this.admissions.set(input.id, admission);
    return admission.action === 'prompt'
      ? 'dispatch'
      : admission.action === 'steer'
        ? 'steer'
        : 'queue';
  }

  private submitted(input: TurnInput, decision: TurnDecision, front: boolean): void {
    const admission = this.admissions.get(input.id);
    const delivery: Delivery = isDelivery(input.delivery) ? input.delivery : 'queue';
    const planned: InputOutcome =
      admission && 'outcome' in admission ? admission.outcome : 'prompted';
    const surface = (SURFACES.has(input.surface ?? '') ? input.surface : 'ws') as Surface;
    this.deps.repo.accept(
      {
        commandSource: this.deps.source,
        commandId: input.id,
        agent: this.deps.agent,
        session: this.deps.session.session,
        text: input.text,
        delivery,
        synthetic: input.synthetic,
        actor: input.actor ?? 'operator',
        surface,
        planned,
        at: front ? 'front' : 'back',
      },
      this.deps.clock(),
    );
    const action =
      delivery === 'stop' && decision === 'queue' && front
        ? 'stop'
        : decision === 'dispatch'
          ? 'prompt'
          : decision;
    const reason = admission?.reason ?? (action === 'stop' ? 'stop and send' : 'next turn');
    // The row is written now; its event and audit row once the prompt or steer reached the pipe.
    later(() => this.admitted(input.id, delivery, action, reason));
  }

  private admitted(id: string, delivery: Delivery, action: string, reason: string): void {
    const input = { id };
    this.deps.emit([
      {
        type: inputAdmittedType(this.deps.agent),
        capture: 'metadata',
        cause: input.id,
        data: { delivery, action, reason },
      },
    ]);
    this.row('input.admitted', input.id, 'ok', {
      delivery,
      action,
      reason,
      mechanism: this.deps.driver.capability.mechanism,
    });
  }

  /** A queued message's text was replaced: its new text, gated like the command's own text. */
  edited(commandId: string, text: string, edits: number): void {
    const type = inputEditedType(this.deps.agent);
    this.deps.emit([editedDraft(type, this.deps.gate(type), commandId, text, edits)]);
  }

  /** The operator reordered the queue: the new order (next first), cause = the message moved. */
  reordered(order: readonly string[], moved: string): void {
    this.deps.emit([{ type: inputReorderedType(this.deps.agent), capture: 'metadata', cause: moved, data: { order } }]);
  }

  private paused(cause: string | null): void {
    const { session, controller } = this.deps.session;
    this.deps.pauses.pause(session, cause, this.deps.clock());
    const queued = controller.queuedCount;
    this.deps.emit([holdDraft(queuePausedType(this.deps.agent), cause, { reason: 'stop', queued })]);
    this.row('input.queue.paused', cause, 'ok', { queued });
  }

  private resumed(by: 'resume' | 'send', input: TurnInput | null): void {
    const { session, controller } = this.deps.session;
    const held = this.deps.pauses.resume(session);
    const cause = input?.id ?? held?.cause ?? null;
    const queued = controller.queuedCount;
    this.deps.emit([holdDraft(queueResumedType(this.deps.agent), cause, { by, queued })]);
    this.row('input.queue.resumed', cause, 'ok', { by, queued });
  }

  private dispatched(input: TurnInput): void {
    if (this.steering.has(input.id)) {
      // A deferred steer starting its own turn: its outcome was already recorded; this run carries it.
      this.steering.delete(input.id);
      this.successorRun = this.deps.session.currentRun;
      return;
    }
    const run = this.deps.session.currentRun;
    const settled = this.deps.repo.markPrompted(
      this.deps.session.session,
      input.id,
      { run },
      this.deps.clock(),
    );
    if (!settled.ok) return;
    const { outcome, reason } = settled.value;
    // Its event once the prompt's write reached the agent's pipe.
    later(() => this.settledEvent(input, outcome as InputOutcome, reason, run));
  }

  private dropped(input: TurnInput, reason: string): void {
    const settled = this.deps.repo.settle(
      this.deps.session.session,
      input.id,
      'dropped',
      reason,
      this.deps.clock(),
    );
    if (!settled.ok) return;
    this.settledEvent(input, 'dropped', reason, null);
    this.row(reason === 'withdrawn' ? 'input.withdrawn' : 'input.dropped', input.id, 'dropped', {
      reason,
    });
  }

  private adopt(commandId: string): void {
    const input = this.steering.get(commandId);
    if (input) this.deps.session.controller.adoptFront(input);
  }

  private async steer(input: TurnInput): Promise<void> {
    const { driver, repo, session } = this.deps;
    const mechanism = driver.capability.mechanism;
    if (this.machine === 'none') this.step('offer');
    this.step('submit');
    this.steering.set(input.id, input);
    // Recorded `sent` before the write (a crash in between reads `interrupted`, never `dropped`);
    // the audit row follows once the write reached the agent's pipe.
    repo.markSent(
      session.session,
      input.id,
      { mechanism, run: session.currentRun },
      this.deps.clock(),
    );
    const answer = driver.steer(input.id, input.text);
    later(() => this.row('input.steer.sent', input.id, 'ok', { mechanism }));
    const verdict = await answer;
    if (this.machine === 'sent') {
      const event = verdict.requeue ? 'degrade' : (VERDICT_EVENT[verdict.outcome] ?? 'degrade');
      if (event === 'fold') this.successorRun = session.currentRun;
      this.step(event);
    }
    if (verdict.outcome !== 'deferred' || verdict.requeue) this.steering.delete(input.id);
    if (verdict.requeue) {
      // Provably never taken as a steer: the next ordinary prompt, in submission order.
      const back = repo.requeue(
        session.session,
        input.id,
        verdict.outcome,
        verdict.reason,
        this.deps.clock(),
      );
      this.row('input.steer.requeued', input.id, verdict.outcome, { reason: verdict.reason });
      if (back.ok && !session.ended) session.controller.requeueFront(input);
      else if (back.ok) this.dropped(input, 'session-ended');
      return;
    }
    const run = session.currentRun;
    const settled = repo.settle(
      session.session,
      input.id,
      verdict.outcome,
      verdict.reason,
      this.deps.clock(),
      run,
      verdict.rpcId,
    );
    if (!settled.ok) return;
    this.settledEvent(input, verdict.outcome, verdict.reason, run);
    this.row('input.steer.settled', input.id, verdict.outcome, {
      reason: verdict.reason,
      mechanism,
      rpcId: verdict.rpcId,
    });
    if (verdict.outcome === 'steered' && verdict.turnId !== undefined)
      void this.received(input, verdict.turnId);
  }

  /** The seen-by-agent receipt, where the agent gives one: its event, SQLite timestamp and audit row. */
  private async received(input: TurnInput, turnId: string): Promise<void> {
    const receipt = await this.deps.driver.receipt(turnId, input.text);
    if (!receipt) return;
    if (!this.deps.repo.markReceived(this.deps.session.session, input.id, this.deps.clock()))
      return;
    const mechanism = this.deps.driver.capability.mechanism;
    const item = receipt.itemId !== null ? { item: receipt.itemId } : {};
    this.deps.emit([
      {
        type: inputReceivedType(this.deps.agent),
        capture: 'metadata',
        cause: input.id,
        data: { input: input.id, turn: receipt.turnId, ...item, mechanism },
      },
    ]);
    this.row('input.received', input.id, 'ok', { turn: receipt.turnId, ...item });
  }

  private settledEvent(
    input: TurnInput,
    outcome: InputOutcome,
    reason: string | null,
    run: string | null,
  ): void {
    const delivery = isDelivery(input.delivery) ? input.delivery : 'queue';
    const mechanism = this.deps.driver.capability.mechanism;
    const data = { outcome, delivery, mechanism, ...(reason ? { reason } : {}), ...(run ? { run } : {}) };
    this.deps.emit([{ type: inputSettledType(this.deps.agent), capture: 'metadata', cause: input.id, data }]);
  }

  private row(
    action: string,
    commandId: string | null,
    outcome: string,
    detail: Record<string, unknown>,
  ): void {
    this.deps.audit({
      actor: 'daemon',
      surface: 'daemon',
      action,
      session: this.deps.session.session,
      commandId,
      outcome,
      detail,
    });
  }
}
