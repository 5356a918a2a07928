/**
 * The hook-path instruction queue as the pending list sees it: the hooks feature provides its
 * channels, durable log and audit sink for this daemon (`provideInstructionQueue`), and the
 * pending-list API edits, reorders and withdraws queued instructions through it. A withdrawal
 * settles the row `dropped { reason: "withdrawn" }`, its audit row and its
 * `x.{vendor}.instruction.dropped` event in one transaction; an edit commits with its
 * `x.{vendor}.instruction.edited` (the new text, gated like the command's own text) and a reorder
 * with its `x.{vendor}.instruction.reordered` (the new order, cause = the first message whose place
 * changed).
 */
import type { Surface } from '../../../common/audit';
import { err, ok, type Result } from '../../../common/result';
import type { VendorId } from '../../../common/vendors';
import type { Database } from 'better-sqlite3';
import { SteeringQueueOps, type QueueOpError } from '../store/steering-queue-ops';
import { SteeringRepo, type QueuedInstruction } from '../store/steering-repo';
import { gateFor } from '../vendors/capture-gate';
import type { MappingContext } from '../vendors/types';
import type { AuditSink, DurableLog, VendorChannel } from './steering-types';

/** What the hooks feature lends the pending list. */
export interface InstructionQueueDeps {
  readonly db: Database;
  readonly channel: (vendor: VendorId) => VendorChannel;
  readonly durable: DurableLog;
  readonly audit: AuditSink;
  readonly clock: () => number;
  /** The capture policy and redaction in force now (gates an edit's text on the stream). */
  readonly context: () => MappingContext;
}

/** Edit, reorder and withdraw of queued hook-path instructions. */
export class InstructionQueue {
  readonly ops: SteeringQueueOps;
  private readonly repo: SteeringRepo;

  constructor(private readonly deps: InstructionQueueDeps) {
    this.ops = new SteeringQueueOps(deps.db);
    this.repo = new SteeringRepo(deps.db);
  }

  queued(session: string): QueuedInstruction[] {
    return this.ops.queued(session);
  }

  edit(
    session: string,
    commandId: string,
    text: string,
    by: { actor: string; surface: Surface },
  ): Result<QueuedInstruction, QueueOpError> {
    const { value: edited } = this.deps.durable.commit((keep) => {
      const done = this.ops.edit(session, commandId, text);
      if (!done.ok) return done;
      const type = `x.${done.value.vendor}.instruction.edited`;
      const gate = gateFor(type, this.deps.context());
      const shown = gate.text(text);
      const channel = this.deps.channel(done.value.vendor);
      keep(
        channel,
        channel.stamp(session, [
          {
            type,
            cause: commandId,
            capture: gate.ceiling,
            data: { text_digest: gate.digest(text), ...(shown === undefined ? {} : { text: shown }) },
          },
        ]),
      );
      return done;
    });
    this.row(
      by,
      'instruct.edited',
      session,
      commandId,
      edited.ok ? 'ok' : 'rejected',
      edited.ok ? null : { error: edited.error.message },
    );
    return edited;
  }

  reorder(
    session: string,
    order: readonly string[],
    by: { actor: string; surface: Surface },
  ): Result<QueuedInstruction[], QueueOpError> {
    const { value: moved } = this.deps.durable.commit((keep) => {
      const before = this.ops.queued(session).map((q) => q.commandId);
      const done = this.ops.reorder(session, order);
      const first = order.findIndex((id, i) => before[i] !== id);
      if (!done.ok || first < 0 || done.value.length === 0) return done;
      const vendor = done.value[0].vendor;
      const channel = this.deps.channel(vendor);
      keep(
        channel,
        channel.stamp(session, [
          {
            type: `x.${vendor}.instruction.reordered`,
            cause: order[first],
            capture: 'metadata',
            data: { order: [...order] },
          },
        ]),
      );
      return done;
    });
    this.row(by, 'instruct.reordered', session, null, moved.ok ? 'ok' : 'rejected', { order });
    return moved;
  }

  /** Withdraws a queued instruction: row, audit and event commit together; resolves once sent. */
  async withdraw(
    session: string,
    commandId: string,
    by: { actor: string; surface: Surface },
  ): Promise<Result<QueuedInstruction, QueueOpError>> {
    const found = this.ops.find(session, commandId);
    if (!found.ok) return found;
    const now = this.deps.clock();
    const { value, sent } = this.deps.durable.commit((keep) => {
      const [dropped] = this.repo.markDropped([found.value], 'withdrawn', now);
      if (!dropped) return null;
      const queuedMs = Math.max(0, now - dropped.queuedAtMs);
      this.row(by, 'instruct.withdrawn', session, commandId, 'dropped', {
        reason: 'withdrawn',
        queued_ms: queuedMs,
      });
      const channel = this.deps.channel(dropped.vendor);
      keep(
        channel,
        channel.stamp(session, [
          {
            type: `x.${dropped.vendor}.instruction.dropped`,
            cause: commandId,
            severity: 'notice',
            data: { reason: 'withdrawn', queued_ms: queuedMs },
          },
        ]),
      );
      return dropped;
    });
    if (value === null) return err('not-queued', `instruction ${commandId} was taken meanwhile`);
    await sent;
    return ok(value);
  }

  private row(
    by: { actor: string; surface: Surface },
    action: string,
    session: string,
    commandId: string | null,
    outcome: string,
    detail: Record<string, unknown> | null,
  ): void {
    this.deps.audit({
      actor: by.actor,
      surface: by.surface,
      action,
      session,
      commandId,
      outcome,
      detail,
    });
  }
}

const queues = new WeakMap<object, InstructionQueue>();

/** Called by the hooks feature: this daemon's instruction queue (keyed by its context). */
export function provideInstructionQueue(ctx: object, deps: InstructionQueueDeps): () => void {
  queues.set(ctx, new InstructionQueue(deps));
  return () => {
    queues.delete(ctx);
  };
}

/** The instruction queue of a daemon, when its hooks feature runs. */
export const instructionQueueFor = (ctx: object): InstructionQueue | undefined => queues.get(ctx);
