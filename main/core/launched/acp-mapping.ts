/**
 * ACP moments → AEP events, per `aep/fixtures/mappings/acp.json` (pure). The run is one prompt
 * turn (opened by our `session/prompt`, closed by its `stopReason`); tool calls pair by
 * `toolCallId` (the subject); plans ride as status counts (ACP plan entries carry no id); usage as
 * `gen_ai.usage.*` metadata; machinery updates as `x.acp.*` with an empty payload. Where the host
 * differs from the read-only tee the fixture pins: permission cards carry the agent's options
 * (ids verbatim) and `respond_via: ["control"]`, because the host answers them.
 */
import { contentDigest } from '../aep/content-digest';
import { gateFor } from '../vendors/capture-gate';
import { mapped } from '../vendors/event-builders';
import { compact } from '../vendors/payload-fields';
import type { MappedEvent, MappingContext } from '../vendors/types';
import type { AgentUpdate, PermissionAsk, TurnEnd } from './driver';

/** A tool call the mapping saw requested. */
interface ToolSeen {
  name: string;
  input: unknown;
  settled: boolean;
  run?: string | null;
}

/** What the mapping remembers between moments of one session. */
export interface TurnMappingState {
  /** The open run (one prompt turn), or null between turns. */
  run: string | null;
  /**
   * Tool calls seen: call id → the title and input they were requested with, and the run that
   * requested them (background work keeps its run after a fold or a deferred hand-off).
   */
  readonly tools: Map<string, ToolSeen>;
  /** Assistant text of the open run (joined chunks), for `run.finished.summary` at the capture ceiling. */
  text: string;
  /** Usage the agent reported during the open run (last `usage_update`). */
  usage: { input?: number; output?: number } | null;
  /** Assistant text that arrived with no prompt in flight (background work): its own event, never a run's summary. */
  idleText: string;
}

export const newTurnMappingState = (): TurnMappingState => ({ run: null, tools: new Map(), text: '', usage: null, idleText: '' });

/** `x.acp.agent.output`: model output that arrived with no prompt in flight (its length; the text at the capture level). */
export const IDLE_OUTPUT = 'x.acp.agent.output';

/** The event of the assistant text that arrived with no prompt in flight, or null when there is none. Clears it. */
export function idleOutput(state: TurnMappingState, context: MappingContext): MappedEvent | null {
  if (state.idleText === '') return null;
  const text = state.idleText;
  state.idleText = '';
  const gate = gateFor(IDLE_OUTPUT, context);
  return mapped(IDLE_OUTPUT, context, compact({ chars: text.length, in_flight: false, text: gate.text(text) }), { run: null });
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : undefined);

/** `x.acp.<name>` for a method or update name: `/` and `_` become `.`, a single word gains `.event`. */
export function machineryType(name: string): string {
  const parts = name.split(/[/_]/).filter((p) => p !== '').map((p) => p.toLowerCase().replace(/[^a-z0-9-]/g, '-'));
  if (parts.length === 0) return 'x.acp.unknown.event';
  if (parts.length === 1) parts.push('event');
  return `x.acp.${parts.join('.')}`;
}

/** `run.started` for a prompt the host sends: digest at metadata, text at redacted and above. */
export function runStarted(run: string, prompt: readonly unknown[], text: string, context: MappingContext, trigger: 'user' | 'control' = 'user'): MappedEvent {
  const gate = gateFor('run.started', context);
  return mapped('run.started', context, compact({ trigger, message_digest: gate.digest(prompt), prompt: gate.text(text) }), { run, key: run });
}

/** The events of one `session/update`. Updates the state (tools, assistant text, usage). */
export function mapUpdate(update: AgentUpdate, state: TurnMappingState, context: MappingContext): MappedEvent[] {
  const run = state.run;
  switch (update.sessionUpdate) {
    case 'tool_call': {
      const id = str(update['toolCallId']) ?? '';
      const name = str(update['title']) ?? str(update['name']) ?? 'tool';
      const input = update['rawInput'];
      state.tools.set(id, { name, input, settled: false, run });
      const gate = gateFor('tool.requested', context);
      const requested = mapped(
        'tool.requested',
        context,
        compact({
          tool: { name, call_id: id },
          kind: str(update['kind']),
          args_digest: input === undefined ? undefined : gate.digest(input),
          args_redacted: gate.allows('full') || typeof input !== 'object' || input === null ? undefined : gate.redacted(input),
          args: typeof input === 'object' && input !== null ? gate.full(input) : undefined,
        }),
        { subject: id, run, key: id },
      );
      const status = str(update['status']);
      return status === 'completed' || status === 'failed' ? [requested, ...toolOutcome(update, state, context)] : [requested];
    }
    case 'tool_call_update': {
      const status = str(update['status']);
      const id = str(update['toolCallId']) ?? '';
      const known = state.tools.get(id);
      if (known && str(update['title']) !== undefined && !known.settled) known.name = str(update['title']) as string;
      if (status === 'completed' || status === 'failed') return toolOutcome(update, state, context);
      const input = lateInput(update, known, context);
      if (status === undefined && input === undefined) return [];
      return [mapped('x.acp.tool_call.update', context, compact({ status, ...input }), { subject: id, run: known?.run ?? run })];
    }
    case 'plan': {
      const entries = Array.isArray(update['entries']) ? (update['entries'] as Record<string, unknown>[]) : [];
      const completed = entries.filter((e) => e?.['status'] === 'completed').length;
      return [mapped('x.acp.plan.updated', context, { entries_pending: entries.length - completed, entries_completed: completed }, { run })];
    }
    case 'agent_message_chunk': {
      const content = update['content'] as Record<string, unknown> | undefined;
      if (content?.['type'] !== 'text' || typeof content['text'] !== 'string') return [];
      if (run === null) state.idleText += content['text'];
      else state.text += content['text'];
      return [];
    }
    case 'agent_thought_chunk':
    case 'user_message_chunk':
      return [];
    case 'usage_update': {
      const input = num(update['usedTokens']) ?? num(update['used']) ?? num(update['inputTokens']);
      const output = num(update['outputTokens']);
      // Usage of a model cycle with no prompt in flight is reported, never charged to the next run.
      if (run !== null) state.usage = { ...(input === undefined ? {} : { input }), ...(output === undefined ? {} : { output }) };
      return [mapped('x.acp.usage.updated', context, compact({ 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output }), { run })];
    }
    default:
      return [mapped(machineryType(update.sessionUpdate), context, {}, { run })];
  }
}

const isEmptyObject = (v: unknown): boolean => typeof v === 'object' && v !== null && Object.keys(v).length === 0;

/**
 * The input of a call announced without it (Claude Code's bridge sends `rawInput: {}` with the
 * `tool_call` and the command in a later update), gated like `tool.requested`'s; undefined when
 * the update brings none or the call already had its input.
 */
function lateInput(update: AgentUpdate, known: ToolSeen | undefined, context: MappingContext): Record<string, unknown> | undefined {
  const input = update['rawInput'];
  if (!known || known.settled || (known.input !== undefined && !isEmptyObject(known.input))) return undefined;
  if (typeof input !== 'object' || input === null || isEmptyObject(input)) return undefined;
  known.input = input;
  const gate = gateFor('tool.requested', context);
  return compact({ args_digest: gate.digest(input), args_redacted: gate.allows('full') ? undefined : gate.redacted(input), args: gate.full(input) });
}

function toolOutcome(update: AgentUpdate, state: TurnMappingState, context: MappingContext): MappedEvent[] {
  const id = str(update['toolCallId']) ?? '';
  const known = state.tools.get(id);
  if (known?.settled) return [];
  const name = known?.name ?? str(update['title']) ?? 'tool';
  // The settlement belongs to the run that requested the call, even when it arrives in a later run.
  const run = known?.run !== undefined ? known.run : state.run;
  if (known) known.settled = true;
  else state.tools.set(id, { name, input: undefined, settled: true, run });
  const causeHint = { type: 'tool.requested', key: id };
  const output = update['rawOutput'];
  if (update['status'] === 'failed') {
    // A failed command's output says why: it rides as the error's message (redacted-gated text).
    const message = typeof output === 'string' && output !== '' ? gateFor('tool.failed', context).text(output.slice(-4_000)) : undefined;
    return [mapped('tool.failed', context, { tool: { name, call_id: id }, error: compact({ type: 'tool_error', message }) }, { subject: id, run, key: id, causeHint })];
  }
  const gate = gateFor('tool.completed', context);
  return [
    mapped(
      'tool.completed',
      context,
      compact({
        tool: { name, call_id: id },
        result_digest: output === undefined ? undefined : gate.digest(output),
        result: gate.full(output),
        // Below full the output is kept scrubbed, as the arguments are.
        result_redacted: gate.allows('full') || output === undefined || output === null ? undefined : gate.redacted(output),
      }),
      { subject: id, run, key: id, causeHint },
    ),
  ];
}

/** Stop reasons that end a run as a completion (bounded terminations included). */
const FINISHED = new Set(['end_turn', 'max_tokens', 'max_turn_requests']);

/**
 * The terminal event of the open run for a settled prompt: `run.finished` (with the stop reason,
 * usage and, for the emitter's ceiling, the assistant text in `summary`), `run.cancelled`, or
 * `run.failed`. Clears the run.
 */
export function runEnded(end: TurnEnd, state: TurnMappingState, context: MappingContext, cancelledBy: 'user' | 'control' | 'shutdown' = 'user'): MappedEvent {
  const run = state.run;
  const usage = end.usage ?? null;
  const input = num(usage?.inputTokens) ?? state.usage?.input;
  const output = num(usage?.outputTokens) ?? state.usage?.output;
  let event: MappedEvent;
  if (FINISHED.has(end.stopReason)) {
    const gate = gateFor('run.finished', context);
    event = mapped(
      'run.finished',
      context,
      compact({ stop_reason: end.stopReason, 'gen_ai.usage.input_tokens': input, 'gen_ai.usage.output_tokens': output, summary: state.text === '' ? undefined : gate.text(state.text) }),
      runLink(run),
    );
  } else if (end.stopReason === 'cancelled') {
    event = mapped('run.cancelled', context, { by: cancelledBy }, runLink(run));
  } else {
    event = mapped('run.failed', context, { reason: end.stopReason === 'refusal' ? 'refusal' : 'error' }, { ...runLink(run), severity: 'error' });
  }
  state.run = null;
  state.text = '';
  state.usage = null;
  return event;
}

/** `run.failed` for a turn the agent never settled (it died, or the request failed). */
export function runFailed(reason: string, message: string | undefined, state: TurnMappingState, context: MappingContext): MappedEvent | null {
  const run = state.run;
  if (run === null) return null;
  state.run = null;
  state.text = '';
  state.usage = null;
  const gate = gateFor('run.failed', context);
  const text = gate.text(message);
  return mapped('run.failed', context, compact({ reason, error: text === undefined ? undefined : { type: reason, message: text } }), { ...runLink(run), severity: 'error' });
}

const runLink = (run: string | null) => ({ run, key: run ?? undefined, causeHint: run === null ? undefined : { type: 'run.started', key: run } });

/**
 * `attention.requested (kind=permission)` for a `session/request_permission`: the agent's options
 * with their ids verbatim (labels at redacted and above, the ACP kind as label below), answerable
 * through `control.attention.respond`. The prompt is synthesized from structure at metadata.
 */
export function permissionRequested(ask: PermissionAsk, context: MappingContext, run: string | null): MappedEvent {
  const gate = gateFor('attention.requested', context);
  const title = str(ask.toolCall?.title) ?? undefined;
  const kind = str(ask.toolCall?.['kind']);
  const prompt = gate.allows('redacted') && title !== undefined ? (gate.text(`Permission requested: ${title}`) as string) : `Permission requested: ${kind ?? 'tool call'}`;
  const options = (Array.isArray(ask.options) ? ask.options : []).map((o) => ({
    id: o.optionId,
    label: gate.allows('redacted') ? (gate.text(o.name) ?? o.kind) : o.kind,
    kind: o.kind,
  }));
  return mapped(
    'attention.requested',
    context,
    { kind: 'permission', prompt, options, options_count: options.length, respond_via: ['control'] },
    { subject: str(ask.toolCall?.toolCallId), run },
  );
}

/** Digest helper re-exported for the wire tests (the prompt's content blocks). */
export const promptDigest = (prompt: readonly unknown[]): string => contentDigest(prompt);
