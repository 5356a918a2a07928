/**
 * Pending-list operations on the hook-path instruction queue (`steering`), beside `SteeringRepo`:
 * list a session's queued instructions, edit one's text, reorder them. Only rows still `queued`
 * change (a guarded UPDATE), so an instruction a hook already took is never altered. Delivery
 * order is `n` order (what `SteeringRepo.queued` reads): reordering permutes the queued rows'
 * contents over their `n` slots in one transaction. Withdrawal is `SteeringRepo.markDropped` with
 * reason `withdrawn` (agents/steer/instruction-queue.ts emits its event).
 */
import type { Database, Statement } from 'better-sqlite3';
import { MAX_INSTRUCTION_CHARS } from '../../../common/steering';
import { err, ok, type Result } from '../../../common/result';
import { isVendorId, type VendorId } from '../../../common/vendors';
import type { QueuedInstruction } from './steering-repo';
import { isReorderOf } from '../../../common/order';

export type QueueOpError = 'not-found' | 'not-queued' | 'invalid-text' | 'invalid-order';

interface Raw {
  n: number;
  command_source: string;
  command_id: string;
  vendor: string;
  session: string;
  text: string;
  actor: string;
  surface: string;
  state: string;
  queued_at_ms: number;
}

const toQueued = (r: Raw): QueuedInstruction => ({
  commandSource: r.command_source,
  commandId: r.command_id,
  vendor: (isVendorId(r.vendor) ? r.vendor : 'claude-code') as VendorId,
  session: r.session,
  text: r.text,
  actor: r.actor,
  surface: r.surface as QueuedInstruction['surface'],
  queuedAtMs: r.queued_at_ms,
});

/** The queue operations; statements prepared once. */
export class SteeringQueueOps {
  private readonly queuedStmt: Statement<[string]>;
  private readonly oneStmt: Statement<[string, string]>;
  private readonly editStmt: Statement<[string, string, string]>;
  private readonly moveStmt: Statement<[number, number]>;

  constructor(private readonly db: Database) {
    this.queuedStmt = db.prepare(
      "SELECT * FROM steering WHERE session = ? AND state = 'queued' ORDER BY n",
    );
    this.oneStmt = db.prepare(
      'SELECT * FROM steering WHERE session = ? AND command_id = ? ORDER BY n LIMIT 1',
    );
    this.editStmt = db.prepare(
      "UPDATE steering SET text = ? WHERE session = ? AND command_id = ? AND state = 'queued'",
    );
    this.moveStmt = db.prepare('UPDATE steering SET n = ? WHERE n = ?');
  }

  /** A session's queued instructions, next first. */
  queued(session: string): QueuedInstruction[] {
    return (this.queuedStmt.all(session) as Raw[]).map(toQueued);
  }

  /** One queued instruction, or why not. */
  find(session: string, commandId: string): Result<QueuedInstruction, QueueOpError> {
    const row = this.oneStmt.get(session, commandId) as Raw | undefined;
    if (!row) return err('not-found', `no instruction ${commandId} in session ${session}`);
    if (row.state !== 'queued')
      return err('not-queued', `instruction ${commandId} is ${row.state}: it can no longer change`);
    return ok(toQueued(row));
  }

  /** Replaces a queued instruction's text. */
  edit(session: string, commandId: string, text: string): Result<QueuedInstruction, QueueOpError> {
    if (typeof text !== 'string' || text.trim() === '')
      return err('invalid-text', 'the text must not be empty');
    if (text.length > MAX_INSTRUCTION_CHARS)
      return err('invalid-text', `the text is longer than ${MAX_INSTRUCTION_CHARS} characters`);
    const found = this.find(session, commandId);
    if (!found.ok) return found;
    if (this.editStmt.run(text, session, commandId).changes !== 1)
      return err('not-queued', `instruction ${commandId} was taken meanwhile`);
    return ok({ ...found.value, text });
  }

  /** Reorders a session's queued instructions; `order` names each exactly once. */
  reorder(session: string, order: readonly string[]): Result<QueuedInstruction[], QueueOpError> {
    return this.db.transaction((): Result<QueuedInstruction[], QueueOpError> => {
      const rows = this.queuedStmt.all(session) as Raw[];
      const byId = new Map(rows.map((r) => [r.command_id, r] as const));
      if (!isReorderOf(order, byId)) {
        return err(
          'invalid-order',
          `the order must name each of the ${rows.length} queued instructions exactly once`,
        );
      }
      const slots = rows.map((r) => r.n);
      // Park every row on a negative slot first so no two rows ever share an `n`.
      for (const r of rows) this.moveStmt.run(-r.n, r.n);
      order.forEach((id, i) => this.moveStmt.run(slots[i], -(byId.get(id) as Raw).n));
      return ok(this.queued(session));
    })();
  }
}
