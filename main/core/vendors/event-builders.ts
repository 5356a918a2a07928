/** Building blocks shared by the vendor mappings: one builder per AEP event shape, capture-gated. */
import type { Severity } from '../../../common/aep/envelope';
import type { VendorId } from '../../../common/vendors';
import { gateFor } from './capture-gate';
import { compact, str, type JsonObject } from './payload-fields';
import type { CauseHint, HookCall, HookTool, MappedEvent, MappingContext } from './types';

/** Envelope-level extras of a mapped event. */
export interface EventExtras {
  readonly subject?: string;
  readonly run?: string | null;
  readonly severity?: Severity;
  readonly key?: string;
  readonly causeHint?: CauseHint;
}

/** One mapped event with `capture` set to the ceiling honoured for its type. */
export const mapped = (
  type: string,
  context: MappingContext,
  data: Record<string, unknown>,
  extras: EventExtras = {},
): MappedEvent => {
  const capture = gateFor(type, context).ceiling;
  return compact({
    type,
    subject: extras.subject,
    run: extras.run ?? undefined,
    severity: extras.severity,
    capture,
    // At `none` the event says only that something happened (AEP-0001 §8.2).
    data: capture === 'none' ? undefined : data,
    key: extras.key,
    causeHint: extras.causeHint,
    // Attention followers name their request by event id (AEP-0002 §7.1): the emitter resolves it.
    subjectFromCause:
      type.startsWith('attention.') && type !== 'attention.requested' ? true : undefined,
  }) as unknown as MappedEvent;
};

/** The `tool` object of tool events. */
export const toolRef = (tool: HookTool): Record<string, unknown> =>
  compact({ name: tool.name, call_id: tool.callId });

/** Correlation hint from a tool outcome back to its request. */
const toolCause = (tool: HookTool): CauseHint | undefined =>
  tool.callId === undefined ? undefined : { type: 'tool.requested', key: tool.callId };

/** `tool.requested`: args digest at metadata, redacted args at redacted, args at full. */
export const toolRequested = (
  tool: HookTool,
  context: MappingContext,
  run: string | null,
): MappedEvent => {
  const gate = gateFor('tool.requested', context);
  const input = tool.input ?? undefined;
  return mapped(
    'tool.requested',
    context,
    compact({
      tool: toolRef(tool),
      args_digest: gate.digest(input),
      args_redacted: gate.allows('full') ? undefined : gate.redacted(input),
      args: gate.full(input),
    }),
    { subject: tool.name, run, key: tool.callId },
  );
};

/** `tool.completed`: result digest at metadata, redacted result at redacted, result at full. */
export const toolCompleted = (
  tool: HookTool,
  result: unknown,
  context: MappingContext,
  run: string | null,
  durationMs?: number,
): MappedEvent => {
  const gate = gateFor('tool.completed', context);
  return mapped(
    'tool.completed',
    context,
    compact({
      tool: toolRef(tool),
      duration_ms: durationMs,
      result_digest: gate.digest(result),
      result_redacted: gate.allows('full') ? undefined : gate.redacted(result),
      result: gate.full(result),
    }),
    { subject: tool.name, run, key: tool.callId, causeHint: toolCause(tool) },
  );
};

/** `tool.failed`: the error type is structural, its message redacted-gated. */
export const toolFailed = (
  tool: HookTool,
  errorType: string,
  message: string | undefined,
  context: MappingContext,
  run: string | null,
  durationMs?: number,
): MappedEvent => {
  const gate = gateFor('tool.failed', context);
  return mapped(
    'tool.failed',
    context,
    compact({
      tool: toolRef(tool),
      duration_ms: durationMs,
      error: compact({ type: errorType, message: gate.text(message) }),
    }),
    { subject: tool.name, run, key: tool.callId, causeHint: toolCause(tool) },
  );
};

/** `tool.denied`: who denied it, and the rule text at redacted and above. */
export const toolDenied = (
  tool: HookTool,
  by: 'policy' | 'user_setting' | 'runtime',
  rule: string | undefined,
  context: MappingContext,
  run: string | null,
  durationMs?: number,
): MappedEvent => {
  const gate = gateFor('tool.denied', context);
  return mapped(
    'tool.denied',
    context,
    compact({ tool: toolRef(tool), duration_ms: durationMs, by, rule: gate.text(rule) }),
    { subject: tool.name, run, key: tool.callId, causeHint: toolCause(tool) },
  );
};

/** `session.started` for the Claude Code hook family: client, trigger, model, cwd at redacted. */
export const sessionStarted = (
  vendor: VendorId,
  call: HookCall,
  context: MappingContext,
  extra: Record<string, unknown> = {},
): MappedEvent => {
  const gate = gateFor('session.started', context);
  return mapped(
    'session.started',
    context,
    compact({
      client: { name: vendor },
      trigger: str(call.payload, 'source'),
      'gen_ai.request.model': str(call.payload, 'model'),
      ...extra,
      cwd: gate.text(call.cwd),
    }),
  );
};

/** `run.started` for a user prompt: the prompt text is redacted-gated. */
export const runStarted = (call: HookCall, context: MappingContext, run: string): MappedEvent => {
  const gate = gateFor('run.started', context);
  return mapped(
    'run.started',
    context,
    compact({ trigger: 'user', prompt: gate.text(call.prompt) }),
    { run, key: run },
  );
};

/** A run's terminal event, cause-linked to its start. */
export const runTerminal = (
  type: 'run.finished' | 'run.failed' | 'run.cancelled',
  data: Record<string, unknown>,
  context: MappingContext,
  run: string | null,
  severity?: Severity,
): MappedEvent =>
  mapped(type, context, data, {
    run,
    severity,
    key: run ?? undefined,
    causeHint: run === null ? undefined : { type: 'run.started', key: run },
  });

/** `run.failed` data from a StopFailure hook: the vendor's error kind, its details redacted-gated. */
export const runFailedData = (call: HookCall, context: MappingContext): Record<string, unknown> => {
  const reason = str(call.payload, 'error') ?? 'unknown';
  const message = gateFor('run.failed', context).text(str(call.payload, 'error_details'));
  return compact({ reason, error: message === undefined ? undefined : { type: reason, message } });
};

/** The subagent pair: subject is the subagent id, its type rides at metadata. */
export const subagentEvent = (
  type: 'delegation.subagent.started' | 'delegation.subagent.stopped',
  call: HookCall,
  context: MappingContext,
  run: string | null,
): MappedEvent => {
  const agentId = str(call.payload, 'agent_id');
  return mapped(type, context, compact({ agent_type: str(call.payload, 'agent_type') }), {
    subject: agentId,
    run,
    key: agentId,
    causeHint:
      type === 'delegation.subagent.stopped' && agentId !== undefined
        ? { type: 'delegation.subagent.started', key: agentId }
        : undefined,
  });
};

/** `session.compacted` with the vendor's trigger. */
export const sessionCompacted = (call: HookCall, context: MappingContext): MappedEvent =>
  mapped('session.compacted', context, compact({ trigger: str(call.payload, 'trigger') }));

/** A vendor-extension event with an empty payload (the fallback carries no content). */
export const extensionEvent = (
  type: string,
  context: MappingContext,
  run: string | null,
): MappedEvent => mapped(type, context, {}, { run });

/** The short text a permission prompt shows for a tool input (its command, path or query). */
const inputSummary = (input: unknown): string | undefined => {
  if (typeof input !== 'object' || input === null) return undefined;
  const fields = input as JsonObject;
  for (const key of ['command', 'cmd', 'file_path', 'path', 'url', 'pattern', 'query']) {
    const value = str(fields, key);
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
};

/**
 * `attention.requested (kind=permission)` with allow/deny. The prompt is content: redacted at the
 * `redacted` ceiling, synthesized from structure alone below it (AEP-0003 §9.2).
 */
export const permissionCard = (
  vendor: VendorId,
  tool: HookTool,
  context: MappingContext,
  run: string | null,
): MappedEvent => {
  const gate = gateFor('attention.requested', context);
  let prompt = `${vendor} requests permission: ${tool.name}`;
  if (gate.allows('redacted')) {
    const summary = inputSummary(tool.input);
    const description =
      typeof tool.input === 'object' && tool.input !== null
        ? str(tool.input as JsonObject, 'description')
        : undefined;
    let text = `Permission requested: ${tool.name}`;
    if (summary !== undefined) text += ` — ${summary}`;
    if (description !== undefined && description !== '') text += ` (${description})`;
    prompt = gate.text(text) ?? prompt;
  }
  return mapped(
    'attention.requested',
    context,
    {
      kind: 'permission',
      prompt,
      options: [
        { id: 'allow', label: 'Allow' },
        { id: 'deny', label: 'Deny' },
      ],
      respond_via: [context.permissionLoop ? 'control' : 'oob'],
    },
    { subject: tool.name, run },
  );
};
