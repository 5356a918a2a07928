/**
 * `agent_inputs`: the durable lifecycle of operator messages to launched sessions (queued, sent,
 * outcome, timestamps, rpc id, run). Every state change goes through the pure transition table
 * (agents/steer/lifecycle.ts) and a guarded UPDATE, so a settled row never moves again and a
 * message is never sent twice.
 */
import type { Database, Statement } from 'better-sqlite3';
import type {
  AgentInputRecord,
  Delivery,
  InputDropReason,
  InputOutcome,
  InputState,
  SteerMechanism,
} from '../../../common/agent-inputs';
import type { Surface } from '../../../common/audit';
import { err, ok, type Result } from '../../../common/result';
import { toRecord, type Row } from './input-row';
import { stepInput, type InputEvent } from '../../../common/input-lifecycle';
import { isReorderOf } from '../../../common/order';

/** A message as accepted. */
export interface NewInput {
  readonly commandSource: string;
  readonly commandId: string;
  readonly agent: string;
  readonly session: string;
  readonly text: string;
  readonly delivery: Delivery;
  readonly synthetic?: boolean;
  readonly actor: string;
  readonly surface: Surface;
  /** The outcome it settles with when sent as an ordinary prompt. */
  readonly planned: InputOutcome;
  /** `front` puts it ahead of every queued message (stop and send). */
  readonly at?: 'back' | 'front';
}

/** How the row was sent. */
export interface SentAs {
  readonly rpcId?: string | null;
  readonly run?: string | null;
  readonly mechanism?: SteerMechanism | null;
}

export type InputErrorCode = 'not-found' | 'illegal-transition' | 'invalid-order' | 'invalid-text';

/** Repository of `agent_inputs`; statements are prepared once. */
export class AgentInputsRepo {
  private readonly insertStmt: Statement<Record<string, unknown>>;
  private readonly byCommand: Statement<[string, string]>;
  private readonly queuedStmt: Statement<[string]>;
  private readonly listStmt: Statement<[string, number]>;
  private readonly edgeStmt: Statement<[string]>;
  private readonly updateStmt: Statement<Record<string, unknown>>;
  private readonly positionStmt: Statement<[number, number]>;
  private readonly openStmt: Statement<[]>;
  private readonly receivedStmt: Statement<[number, number, string, string]>;

  constructor(private readonly db: Database) {
    this.insertStmt = db.prepare(`
      INSERT OR IGNORE INTO agent_inputs (command_source, command_id, agent, session, text, delivery, synthetic, actor, surface,
        state, planned, position, queued_at_ms, updated_at_ms)
      VALUES (@commandSource, @commandId, @agent, @session, @text, @delivery, @synthetic, @actor, @surface,
        'queued', @planned, @position, @atMs, @atMs)`);
    this.byCommand = db.prepare(
      'SELECT * FROM agent_inputs WHERE session = ? AND command_id = ? ORDER BY n LIMIT 1',
    );
    this.queuedStmt = db.prepare(
      "SELECT * FROM agent_inputs WHERE session = ? AND state = 'queued' ORDER BY position, n",
    );
    this.listStmt = db.prepare(
      'SELECT * FROM agent_inputs WHERE session = ? ORDER BY n DESC LIMIT ?',
    );
    this.edgeStmt = db.prepare(
      "SELECT MIN(position) AS lo, MAX(position) AS hi FROM agent_inputs WHERE session = ? AND state = 'queued'",
    );
    this.updateStmt = db.prepare(`
      UPDATE agent_inputs SET state = @state, outcome = @outcome, reason = @reason, planned = @planned, position = @position,
        text = @text, edits = @edits, mechanism = @mechanism, rpc_id = @rpcId, run = @run,
        sent_at_ms = @sentAtMs, settled_at_ms = @settledAtMs, updated_at_ms = @atMs
      WHERE n = @n AND state = @from`);
    this.positionStmt = db.prepare('UPDATE agent_inputs SET position = ? WHERE n = ?');
    this.openStmt = db.prepare(
      "SELECT * FROM agent_inputs WHERE state IN ('queued', 'sent') ORDER BY n",
    );
    this.receivedStmt = db.prepare(`UPDATE agent_inputs SET received_at_ms = ?, updated_at_ms = ?
      WHERE session = ? AND command_id = ? AND outcome = 'steered' AND received_at_ms IS NULL`);
  }

  /** Records an accepted message as queued. Returns false when the command was already recorded. */
  accept(input: NewInput, atMs: number): boolean {
    return this.db.transaction(() => {
      const edge = this.edgeStmt.get(input.session) as { lo: number | null; hi: number | null };
      const position = input.at === 'front' ? (edge.lo ?? 1) - 1 : (edge.hi ?? -1) + 1;
      const fresh =
        this.insertStmt.run({
          commandSource: input.commandSource,
          commandId: input.commandId,
          agent: input.agent,
          session: input.session,
          text: input.text,
          delivery: input.delivery,
          synthetic: input.synthetic ? 1 : 0,
          actor: input.actor,
          surface: input.surface,
          planned: input.planned,
          position,
          atMs,
        }).changes === 1;
      return fresh;
    })();
  }

  /** One message, or null. */
  get(session: string, commandId: string): AgentInputRecord | null {
    const row = this.byCommand.get(session, commandId) as Row | undefined;
    return row ? toRecord(row, this.queuedIndex(row)) : null;
  }

  /** The queued messages of a session, next first. */
  queued(session: string): AgentInputRecord[] {
    return (this.queuedStmt.all(session) as Row[]).map((row, i) => toRecord(row, i));
  }

  /** A session's messages, newest first. */
  list(session: string, limit = 200): AgentInputRecord[] {
    const queued = new Map(
      (this.queuedStmt.all(session) as Row[]).map((row, i) => [row.n, i] as const),
    );
    return (this.listStmt.all(session, limit) as Row[]).map((row) =>
      toRecord(row, queued.get(row.n) ?? null),
    );
  }

  /** The message was written to the agent as a steer, awaiting its outcome. */
  markSent(
    session: string,
    commandId: string,
    how: SentAs,
    atMs: number,
  ): Result<AgentInputRecord, InputErrorCode> {
    return this.apply(session, commandId, { kind: 'send' }, atMs, (row) => ({
      ...this.sentFields(row, how, atMs),
    }));
  }

  /** The message was written as an ordinary prompt: it settles with its planned outcome. */
  markPrompted(
    session: string,
    commandId: string,
    how: SentAs,
    atMs: number,
  ): Result<AgentInputRecord, InputErrorCode> {
    return this.db.transaction(() => {
      const sent = this.markSent(session, commandId, how, atMs);
      if (!sent.ok) return sent;
      const row = this.byCommand.get(session, commandId) as Row;
      return this.settle(
        session,
        commandId,
        (row.planned as InputOutcome | null) ?? 'prompted',
        null,
        atMs,
      );
    })();
  }

  /** Settles a sent message with its outcome (or a queued one as `dropped`). */
  settle(
    session: string,
    commandId: string,
    outcome: InputOutcome,
    reason: string | null,
    atMs: number,
    run?: string | null,
    rpcId?: string | null,
  ): Result<AgentInputRecord, InputErrorCode> {
    const event: InputEvent =
      outcome === 'dropped' ? { kind: 'drop' } : { kind: 'settle', outcome };
    return this.apply(session, commandId, event, atMs, (row) => ({
      reason,
      settledAtMs: atMs,
      position: null,
      run: run ?? row.run,
      rpcId: rpcId ?? row.rpc_id,
    }));
  }

  /** A sent steer the agent provably never took goes back to the head of the queue. */
  requeue(
    session: string,
    commandId: string,
    planned: InputOutcome,
    reason: string,
    atMs: number,
  ): Result<AgentInputRecord, InputErrorCode> {
    return this.db.transaction(() => {
      const edge = this.edgeStmt.get(session) as { lo: number | null };
      return this.apply(session, commandId, { kind: 'requeue' }, atMs, () => ({
        planned,
        reason,
        position: (edge.lo ?? 1) - 1,
        sentAtMs: null,
      }));
    })();
  }

  /** Records the seen-by-agent receipt of a steered message, once; false when there is no such row. */
  markReceived(session: string, commandId: string, atMs: number): boolean {
    return this.receivedStmt.run(atMs, atMs, session, commandId).changes === 1;
  }

  /** Replaces a queued message's text. */
  edit(
    session: string,
    commandId: string,
    text: string,
    atMs: number,
  ): Result<AgentInputRecord, InputErrorCode> {
    if (typeof text !== 'string' || text.trim() === '')
      return err('invalid-text', 'the text must not be empty');
    return this.apply(session, commandId, { kind: 'edit' }, atMs, (row) => ({
      text,
      edits: row.edits + 1,
    }));
  }

  /** Withdraws a queued message (never sent). */
  withdraw(
    session: string,
    commandId: string,
    atMs: number,
  ): Result<AgentInputRecord, InputErrorCode> {
    return this.settle(session, commandId, 'dropped', 'withdrawn' satisfies InputDropReason, atMs);
  }

  /** Reorders a session's queued messages; `order` must name each of them exactly once. */
  reorder(session: string, order: readonly string[]): Result<AgentInputRecord[], InputErrorCode> {
    return this.db.transaction((): Result<AgentInputRecord[], InputErrorCode> => {
      const rows = this.queuedStmt.all(session) as Row[];
      const byId = new Map(rows.map((r) => [r.command_id, r] as const));
      if (!isReorderOf(order, byId)) {
        return err(
          'invalid-order',
          `the order must name each of the ${rows.length} queued messages exactly once`,
        );
      }
      order.forEach((id, i) => this.positionStmt.run(i, (byId.get(id) as Row).n));
      return ok(this.queued(session));
    })();
  }

  /** Drops every queued message of a session with `reason`; returns the dropped records. */
  dropQueued(session: string, reason: InputDropReason, atMs: number): AgentInputRecord[] {
    return this.db.transaction(() => {
      const out: AgentInputRecord[] = [];
      for (const row of this.queuedStmt.all(session) as Row[]) {
        const settled = this.settle(session, row.command_id, 'dropped', reason, atMs);
        if (settled.ok) out.push(settled.value);
      }
      return out;
    })();
  }

  /**
   * At start, before anything is sent: a message caught `sent` settles `interrupted` (delivery
   * can be neither confirmed nor ruled out; never re-sent); a queued message of a session that did
   * not survive settles `dropped`. Returns the rows it settled.
   */
  settleAfterRestart(survives: (session: string) => boolean, atMs: number): AgentInputRecord[] {
    return this.db.transaction(() => {
      const out: AgentInputRecord[] = [];
      for (const row of this.openStmt.all() as Row[]) {
        const settled =
          row.state === 'sent'
            ? this.settle(
                row.session,
                row.command_id,
                'interrupted',
                'daemon restarted before the outcome was known; not re-sent',
                atMs,
              )
            : survives(row.session)
              ? null
              : this.settle(
                  row.session,
                  row.command_id,
                  'dropped',
                  'session-not-resumed' satisfies InputDropReason,
                  atMs,
                );
        if (settled?.ok) out.push(settled.value);
      }
      return out;
    })();
  }

  private sentFields(row: Row, how: SentAs, atMs: number): Partial<Record<string, unknown>> {
    return {
      sentAtMs: atMs,
      position: null,
      rpcId: how.rpcId ?? row.rpc_id,
      run: how.run ?? row.run,
      mechanism: how.mechanism ?? row.mechanism,
    };
  }

  private apply(
    session: string,
    commandId: string,
    event: InputEvent,
    atMs: number,
    fields: (row: Row) => Partial<Record<string, unknown>>,
  ): Result<AgentInputRecord, InputErrorCode> {
    const row = this.byCommand.get(session, commandId) as Row | undefined;
    if (!row) return err('not-found', `no message ${commandId} in session ${session}`);
    const step = stepInput(row.state as InputState, event);
    if (!step.ok) return step;
    const params = {
      n: row.n,
      from: row.state,
      state: step.value.state,
      outcome: step.value.outcome,
      reason: row.reason,
      planned: row.planned,
      position: row.position,
      text: row.text,
      edits: row.edits,
      mechanism: row.mechanism,
      rpcId: row.rpc_id,
      run: row.run,
      sentAtMs: row.sent_at_ms,
      settledAtMs: row.settled_at_ms,
      atMs,
      ...fields(row),
    };
    if (this.updateStmt.run(params).changes !== 1) {
      return err('illegal-transition', `message ${commandId} changed state concurrently`);
    }
    const after = this.byCommand.get(session, commandId) as Row;
    return ok(toRecord(after, this.queuedIndex(after)));
  }

  private queuedIndex(row: Row): number | null {
    if (row.state !== 'queued') return null;
    const index = (this.queuedStmt.all(row.session) as Row[]).findIndex((r) => r.n === row.n);
    return index < 0 ? null : index;
  }
}
