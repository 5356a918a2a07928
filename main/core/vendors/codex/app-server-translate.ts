/**
 * Codex app-server notifications as ACP `SessionUpdate` shapes (pure): command executions and
 * other tool items become `tool_call` / `tool_call_update`, message and reasoning deltas become
 * chunks, token usage becomes `usage_update`, the turn plan becomes `plan`. Everything else is
 * Codex machinery the AEP stream does not carry.
 */
import type { AgentUpdate, PermissionAsk, PermissionOutcome, TurnEnd } from '../../launched/driver';

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

/**
 * The app-server's approval requests (v2: `item/commandExecution/requestApproval`,
 * `item/fileChange/requestApproval`) and the decisions each accepts, as ACP permission options
 * whose ids are the decisions verbatim. `cancel` (deny and interrupt the turn) is what a timeout
 * or a cancelled turn answers; it is not offered. Other server requests (`item/permissions/…`,
 * user input, elicitations) answer a different shape and are not approvals.
 */
const APPROVALS: Readonly<Record<string, { readonly kind: string; readonly title: string }>> = {
  'item/commandExecution/requestApproval': { kind: 'execute', title: 'Run a command' },
  'item/fileChange/requestApproval': { kind: 'edit', title: 'Apply file changes' },
};

const DECISIONS: PermissionAsk['options'] = [
  { optionId: 'accept', name: 'Allow', kind: 'allow_once' },
  { optionId: 'acceptForSession', name: 'Allow for this session', kind: 'allow_always' },
  { optionId: 'decline', name: 'Deny', kind: 'reject_once' },
];

/** The permission ask of an app-server approval request (params verbatim as the raw input), or null when `method` is none. */
export function codexApprovalAsk(method: string, params: Json): PermissionAsk | null {
  const approval = APPROVALS[method];
  if (approval === undefined) return null;
  const title = str(params['command']) ?? str(params['reason']) ?? approval.title;
  return { toolCall: { toolCallId: str(params['itemId']) ?? '', title, kind: approval.kind, rawInput: params }, options: DECISIONS };
}

/** The approval response: the chosen decision, or `cancel` when the ask was cancelled or timed out. */
export function codexApprovalAnswer(outcome: PermissionOutcome): { decision: string } {
  return { decision: outcome.outcome === 'selected' ? outcome.optionId : 'cancel' };
}
