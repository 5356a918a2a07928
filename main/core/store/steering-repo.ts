/** The steering queue and the recorded control acks (AEP-0004 §3 retry answers). */
import type { Database, Statement } from 'better-sqlite3';
import type { Surface } from '../../../common/audit';
import type { DropReason, InstructionRecord, InstructionState } from '../../../common/steering';
import { isVendorId, type VendorId } from '../../../common/vendors';

/** An accepted instruction as the queue holds it. */
export interface QueuedInstruction {
  readonly commandSource: string;
  readonly commandId: string;
  readonly vendor: VendorId;
  readonly session: string;
  readonly text: string;
  readonly actor: string;
  readonly surface: Surface;
  readonly queuedAtMs: number;
}

/** A recorded ack: the exact JSON text emitted, re-sent byte-identically on a retried command. */
export interface RecordedAck {
  readonly source: string;
  readonly commandId: string;
  readonly session: string | null;
  readonly json: string;
}

interface RawInstruction {
  command_source: string;
  command_id: string;
  vendor: string;
  session: string;
  text: string;
  actor: string;
  surface: string;
  state: string;
  queued_at_ms: number;
  settled_at_ms: number | null;
  moment: string | null;
  reason: string | null;
}

const toQueued = (r: RawInstruction): QueuedInstruction => ({
  commandSource: r.command_source,
  commandId: r.command_id,
  vendor: (isVendorId(r.vendor) ? r.vendor : 'claude-code') as VendorId,
  session: r.session,
  text: r.text,
  actor: r.actor,
  surface: r.surface as Surface,
  queuedAtMs: r.queued_at_ms,
});

const toRecord = (r: RawInstruction): InstructionRecord => ({
  commandId: r.command_id,
  vendor: (isVendorId(r.vendor) ? r.vendor : 'claude-code') as VendorId,
  session: r.session,
  state: r.state as InstructionState,
  queuedAt: new Date(r.queued_at_ms).toISOString(),
  settledAt: r.settled_at_ms === null ? null : new Date(r.settled_at_ms).toISOString(),
  moment: r.moment,
  queuedMs: r.settled_at_ms === null ? null : Math.max(0, r.settled_at_ms - r.queued_at_ms),
  reason: (r.reason as DropReason | null) ?? null,
});

/** Repository of `steering` and `control_acks`; statements are prepared once. */
export class SteeringRepo {
  private readonly insertAck: Statement<[string, string, string | null, string, number]>;
  private readonly getAck: Statement<[string, string]>;
  private readonly insertQueued: Statement<Record<string, unknown>>;
  private readonly queuedFor: Statement<[string, string]>;
  private readonly countFor: Statement<[string, string]>;
  private readonly allQueuedStmt: Statement<[]>;
  private readonly allHandingStmt: Statement<[]>;
  private readonly settle: Statement<Record<string, unknown>>;
  private readonly listAll: Statement<[number]>;
  private readonly listSession: Statement<[string, number]>;
  private readonly getOne: Statement<[string, string]>;

  constructor(private readonly db: Database) {
    this.insertAck = db.prepare(
      'INSERT OR IGNORE INTO control_acks (source, command_id, session, json, time_ms) VALUES (?, ?, ?, ?, ?)',
    );
    this.getAck = db.prepare('SELECT source, command_id, session, json FROM control_acks WHERE source = ? AND command_id = ?');
    this.insertQueued = db.prepare(`
      INSERT INTO steering (command_source, command_id, vendor, session, text, actor, surface, state, queued_at_ms)
      VALUES (@commandSource, @commandId, @vendor, @session, @text, @actor, @surface, 'queued', @queuedAtMs)`);
    this.queuedFor = db.prepare("SELECT * FROM steering WHERE vendor = ? AND session = ? AND state = 'queued' ORDER BY n");
    this.countFor = db.prepare("SELECT COUNT(*) AS c FROM steering WHERE vendor = ? AND session = ? AND state = 'queued'");
    this.allQueuedStmt = db.prepare("SELECT * FROM steering WHERE state = 'queued' ORDER BY n");
    this.allHandingStmt = db.prepare("SELECT * FROM steering WHERE state = 'handing' ORDER BY n");
    this.settle = db.prepare(`
      UPDATE steering SET state = @state, settled_at_ms = @at, moment = @moment, reason = @reason
      WHERE command_source = @commandSource AND command_id = @commandId AND state = @from`);
    this.listAll = db.prepare('SELECT * FROM steering ORDER BY n DESC LIMIT ?');
    this.listSession = db.prepare('SELECT * FROM steering WHERE session = ? ORDER BY n DESC LIMIT ?');
    this.getOne = db.prepare('SELECT * FROM steering WHERE command_source = ? AND command_id = ?');
  }

  /** The recorded ack for a command, or null when the command was never decided. */
  findAck(source: string, commandId: string): RecordedAck | null {
    const r = this.getAck.get(source, commandId) as { source: string; command_id: string; session: string | null; json: string } | undefined;
    return r ? { source: r.source, commandId: r.command_id, session: r.session, json: r.json } : null;
  }

  /**
   * Records a decision durably: the ack JSON and, for an accepted instruction, its queue entry,
   * in one transaction (an ack is never recorded without its instruction, nor the reverse).
   * Returns false when the command was already decided (the first decision stands).
   */
  recordDecision(ack: RecordedAck, nowMs: number, queued?: QueuedInstruction): boolean {
    return this.db.transaction(() => {
      const fresh = this.insertAck.run(ack.source, ack.commandId, ack.session, ack.json, nowMs).changes === 1;
      if (fresh && queued) this.insertQueued.run({ ...queued });
      return fresh;
    })();
  }

  /** The queued instructions of one session, in arrival order. */
  queued(vendor: VendorId, session: string): QueuedInstruction[] {
    return (this.queuedFor.all(vendor, session) as RawInstruction[]).map(toQueued);
  }

  /** How many instructions wait for one session. */
  countQueued(vendor: VendorId, session: string): number {
    return (this.countFor.get(vendor, session) as { c: number }).c;
  }

  /** Every queued instruction, in arrival order. */
  allQueued(): QueuedInstruction[] {
    return (this.allQueuedStmt.all() as RawInstruction[]).map(toQueued);
  }

  /**
   * Moves queued instructions to `handing` (being written into a hook reply) in one transaction and
   * returns those that were still queued: a second hook racing this one cannot take them again.
   */
  markHanding(items: readonly QueuedInstruction[], atMs: number): QueuedInstruction[] {
    return this.settleMany(items, { state: 'handing', moment: null, reason: null }, atMs, 'queued');
  }

  /** Moves handed instructions to delivered (the reply carrying them was written); returns those moved. */
  markDelivered(items: readonly QueuedInstruction[], moment: string, atMs: number): QueuedInstruction[] {
    return this.settleMany(items, { state: 'delivered', moment, reason: null }, atMs, 'handing');
  }

  /** Moves instructions in state `from` (default queued) to dropped with a reason; returns those moved. */
  markDropped(
    items: readonly QueuedInstruction[],
    reason: DropReason,
    atMs: number,
    from: 'queued' | 'handing' = 'queued',
  ): QueuedInstruction[] {
    return this.settleMany(items, { state: 'dropped', moment: null, reason }, atMs, from);
  }

  /** Instructions caught in a hand-over (a previous run died between taking and confirming them). */
  allHanding(): QueuedInstruction[] {
    return (this.allHandingStmt.all() as RawInstruction[]).map(toQueued);
  }

  /** One instruction's record, or null. */
  get(commandSource: string, commandId: string): InstructionRecord | null {
    const r = this.getOne.get(commandSource, commandId) as RawInstruction | undefined;
    return r ? toRecord(r) : null;
  }

  /** Instruction records, newest first, optionally for one session. */
  list(options: { session?: string; limit?: number } = {}): InstructionRecord[] {
    const limit = Math.max(1, Math.min(options.limit ?? 500, 5_000));
    const rows = options.session === undefined ? this.listAll.all(limit) : this.listSession.all(options.session, limit);
    return (rows as RawInstruction[]).map(toRecord);
  }

  private settleMany(
    items: readonly QueuedInstruction[],
    change: { state: InstructionState; moment: string | null; reason: DropReason | null },
    atMs: number,
    from: InstructionState,
  ): QueuedInstruction[] {
    return this.db.transaction(() =>
      items.filter(
        (i) => this.settle.run({ ...change, from, at: atMs, commandSource: i.commandSource, commandId: i.commandId }).changes === 1,
      ),
    )();
  }
}
