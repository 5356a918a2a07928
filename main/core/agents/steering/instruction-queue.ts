/**
 * The hook-path instruction queue as the pending list sees it: the hooks feature provides its
 * channels, durable log and audit sink for this daemon (`provideInstructionQueue`), and the
 * pending-list API edits, reorders and withdraws queued instructions through it. A withdrawal
 * settles the row `dropped { reason: "withdrawn" }`, its audit row and its
 * `x.{vendor}.instruction.dropped` event in one transaction.
 */
import type { Surface } from '../../../../common/audit';
import { err, ok, type Result } from '../../../../common/result';
import type { VendorId } from '../../../../common/vendors';
import type { Database } from 'better-sqlite3';
import { SteeringQueueOps, type QueueOpError } from '../../store/steering-queue-ops';
import { SteeringRepo, type QueuedInstruction } from '../../store/steering-repo';
import type { AuditSink, DurableLog, VendorChannel } from './steering-types';

/** What the hooks feature lends the pending list. */
export interface InstructionQueueDeps {
  readonly db: Database;
  readonly channel: (vendor: VendorId) => VendorChannel;
  readonly durable: DurableLog;
  readonly audit: AuditSink;
  readonly clock: () => number;
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
    const edited = this.ops.edit(session, commandId, text);
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
    const moved = this.ops.reorder(session, order);
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
