/** The stored row of `agent_inputs` (migration 0080) and its record form (common/agent-inputs.ts). */
import type { AgentInputRecord, Delivery, InputOutcome, InputState, SteerMechanism } from '../../../common/agent-inputs';

/** One `agent_inputs` row as stored. */
export interface Row {
  n: number;
  command_source: string;
  command_id: string;
  agent: string;
  session: string;
  text: string;
  delivery: string;
  synthetic: number;
  actor: string;
  surface: string;
  state: string;
  planned: string | null;
  outcome: string | null;
  reason: string | null;
  position: number | null;
  mechanism: string | null;
  rpc_id: string | null;
  run: string | null;
  edits: number;
  queued_at_ms: number;
  sent_at_ms: number | null;
  settled_at_ms: number | null;
  received_at_ms: number | null;
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The record form of a row (`position`: its index among the session's queued messages). */
export function toRecord(row: Row, position: number | null): AgentInputRecord {
  return {
    commandId: row.command_id,
    session: row.session,
    agent: row.agent,
    delivery: row.delivery as Delivery,
    state: row.state as InputState,
    outcome: (row.outcome as InputOutcome | null) ?? null,
    reason: row.reason,
    position,
    text: row.text,
    queuedAt: iso(row.queued_at_ms) as string,
    sentAt: iso(row.sent_at_ms),
    settledAt: iso(row.settled_at_ms),
    run: row.run,
    rpcId: row.rpc_id,
    mechanism: (row.mechanism as SteerMechanism | null) ?? null,
    edits: row.edits,
    receivedAt: iso(row.received_at_ms),
  };
}
