/**
 * Codex app-server notifications as ACP `SessionUpdate` shapes (pure): command executions and
 * other tool items become `tool_call` / `tool_call_update`, message and reasoning deltas become
 * chunks, token usage becomes `usage_update`, the turn plan becomes `plan`. Everything else is
 * Codex machinery the AEP stream does not carry.
 */
import type { AgentUpdate, TurnEnd } from './driver';

type Json = Record<string, unknown>;

const TOOL_KINDS: Readonly<Record<string, string>> = {
  commandExecution: 'execute',
  fileChange: 'edit',
  mcpToolCall: 'other',
  dynamicToolCall: 'other',
  webSearch: 'fetch',
  imageView: 'read',
};

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The ACP-shaped update of one Codex notification, or null when it has none. */
export function codexItemUpdate(method: string, params: Json): AgentUpdate | null {
  if (method === 'item/started' || method === 'item/completed') {
    const item = (params['item'] ?? {}) as Json;
    const type = str(item['type']) ?? '';
    const kind = TOOL_KINDS[type];
    if (kind === undefined) return null;
    const id = str(item['id']) ?? '';
    const title = str(item['command']) ?? str(item['tool']) ?? str(item['query']) ?? type;
    if (method === 'item/started') {
      return { sessionUpdate: 'tool_call', toolCallId: id, title, kind, status: 'in_progress', rawInput: toolInput(item) };
    }
    const status = str(item['status']);
    const failed = status === 'failed' || status === 'declined' || (typeof item['exitCode'] === 'number' && item['exitCode'] !== 0);
    return {
      sessionUpdate: 'tool_call_update',
      toolCallId: id,
      title,
      status: failed ? 'failed' : 'completed',
      rawOutput: item['aggregatedOutput'] ?? item['result'] ?? item['changes'] ?? null,
    };
  }
  if (method === 'item/agentMessage/delta') return { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: str(params['delta']) ?? '' } };
  if (method === 'item/reasoning/textDelta' || method === 'item/reasoning/summaryTextDelta')
    return { sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: str(params['delta']) ?? '' } };
  if (method === 'thread/tokenUsage/updated') {
    const last = ((params['tokenUsage'] ?? {}) as Json)['last'] as Json | undefined;
    if (!last) return null;
    return { sessionUpdate: 'usage_update', usedTokens: Number(last['inputTokens'] ?? 0), outputTokens: Number(last['outputTokens'] ?? 0) };
  }
  if (method === 'turn/plan/updated' && Array.isArray(params['plan'])) {
    const entries = (params['plan'] as Json[]).map((step) => ({ content: str(step['step']) ?? '', status: planStatus(str(step['status'])), priority: 'medium' }));
    return { sessionUpdate: 'plan', entries };
  }
  return null;
}

function toolInput(item: Json): Json {
  const input: Json = {};
  for (const key of ['command', 'cwd', 'tool', 'server', 'arguments', 'query', 'changes']) if (item[key] !== undefined) input[key] = item[key];
  return input;
}

const planStatus = (s: string | undefined): string => (s === 'completed' ? 'completed' : s === 'inProgress' ? 'in_progress' : 'pending');

/** How a Codex turn ended, as an ACP stop reason: completed → end_turn, interrupted → cancelled, failed → failed. */
export function codexTurnEnd(turn: Json, usage: TurnEnd['usage']): TurnEnd {
  const status = str(turn['status']);
  const stopReason = status === 'completed' ? 'end_turn' : status === 'interrupted' ? 'cancelled' : 'failed';
  return { stopReason, usage: usage ?? null, raw: turn };
}
