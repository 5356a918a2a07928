/**
 * Hermes Agent shell hooks (AEP-0002 Annex A.10, pinned by the hermes mapping fixture). Payloads are
 * `{hook_event_name, tool_name, tool_input, session_id, cwd, extra}`; the real per-turn
 * `extra.turn_id` is the run. `on_session_end` fires per TURN and closes the run; the session ends at
 * `on_session_finalize` alone; `on_session_reset` carries the successor's id and is not an end. Tool
 * results split three ways (completed / failed / denied by policy). The vendor's approval gate and
 * the `clarify` question tool are observed read-only (`respond_via: ["oob"]`).
 */
import { err, ok, type Result } from '../../../../common/result';
import { VENDOR_NAMES } from '../../../../common/vendors';
import { gateFor } from '../capture-gate';
import { defineAdapter } from '../define-adapter';
import {
  extensionEvent,
  mapped,
  permissionCard,
  runStarted,
  toolCompleted,
  toolDenied,
  toolFailed,
  toolRequested,
} from '../event-builders';
import { snakeCase } from '../fallback';
import { clarifyChoices, gateField, type FormField } from '../forms';
import { compact, int, isObject, nonEmpty, obj, str, type JsonObject } from '../payload-fields';
import { closeRun, endSession, openRun, outcome, withOpenTool, withoutTool } from '../runs';
import { hermesPreToolCallDecision } from '../tool-gates';
import type {
  HookCall,
  HookParseErrorCode,
  HookTool,
  MappedEvent,
  MappingContext,
  MappingOutcome,
  MappingState,
} from '../types';

/** The vendor's ask-the-user tool, observed as a form card beside its tool events. */
export const CLARIFY_TOOL = 'clarify';

/** Unknown hooks land in the vendor plane: `pre_verify` → `x.hermes.pre.verify`. */
export const hermesFallbackType = (moment: string): string => {
  const name = snakeCase(moment);
  const split = name.indexOf('_');
  return split > 0
    ? `x.hermes.${name.slice(0, split)}.${name.slice(split + 1)}`
    : `x.hermes.session.${name}`;
};

const TOOL_MOMENTS = new Set(['pre_tool_call', 'post_tool_call']);

const parse = (payload: unknown): Result<HookCall, HookParseErrorCode> => {
  const name = VENDOR_NAMES.hermes;
  if (!isObject(payload))
    return err('invalid-payload', `${name} hook payload is not a JSON object`);
  const moment = nonEmpty(payload, 'hook_event_name');
  if (moment === undefined)
    return err('invalid-payload', `${name} hook payload has no hook_event_name`);
  const extra = obj(payload, 'extra') ?? {};
  const sessionId = nonEmpty(payload, 'session_id') ?? nonEmpty(extra, 'parent_session_id');
  // Approval hooks carry session_id "" and name the session only through extra.session_key.
  const sessionKey = sessionId === undefined ? nonEmpty(extra, 'session_key') : undefined;
  const session = sessionId ?? sessionKey;
  if (session === undefined)
    return err('invalid-payload', `${name} ${moment} payload has no session_id`);
  const toolName = nonEmpty(payload, 'tool_name');
  if (TOOL_MOMENTS.has(moment) && toolName === undefined) {
    return err('invalid-payload', `${name} ${moment} payload has no tool_name`);
  }
  const call: HookCall = {
    vendor: 'hermes',
    moment,
    session,
    sessionUnconfirmed: sessionKey === undefined ? undefined : true,
    turn: nonEmpty(extra, 'turn_id') ?? nonEmpty(extra, 'parent_turn_id'),
    cwd: nonEmpty(payload, 'cwd'),
    tool:
      toolName === undefined
        ? undefined
        : {
            name: toolName,
            callId: nonEmpty(extra, 'tool_call_id'),
            input: payload.tool_input ?? undefined,
          },
    prompt: str(extra, 'user_message'),
    payload,
  };
  return ok(
    Object.fromEntries(
      Object.entries(call).filter(([, value]) => value !== undefined),
    ) as unknown as HookCall,
  );
};

const extraOf = (call: HookCall): JsonObject => obj(call.payload, 'extra') ?? {};

/** The clarify question as the form field the user is shown, or undefined when there is no question. */
export const clarifyField = (input: unknown): FormField | undefined => {
  const question = isObject(input) ? str(input, 'question')?.trim() : undefined;
  if (question === undefined || question === '') return undefined;
  const choices = clarifyChoices(isObject(input) ? input.choices : undefined);
  if (choices.length === 0) return { id: '1', type: 'string', label: question, required: true };
  return {
    id: '1',
    type: 'select',
    label: question,
    required: true,
    // The vendor UI always appends its own free-text "Other" entry.
    other: true,
    choices: choices.map((label, index) => ({ id: String(index + 1), label })),
  };
};

/** The vendor's return-contract sentinels for a clarify that nobody answered in time. */
const CLARIFY_TIMEOUTS = [
  /^The user did not provide a response within the time limit\. Use your best judgement to make the choice and proceed\.$/,
  /^\[user did not respond within \d+m\]$/,
];
/** The sentinels for a clarify the user cancelled or never saw. */
const CLARIFY_DISMISSALS = new Set([
  'The user cancelled. Use your best judgement to proceed.',
  '[clarify prompt could not be delivered]',
]);

/** The clarify card's terminal from the tool result: answered, timed out or dismissed; none if unparseable. */
const clarifyOutcome = (
  callId: string,
  status: string,
  extra: JsonObject,
  context: MappingContext,
): MappedEvent[] => {
  const settle = (type: string, data: Record<string, unknown>): MappedEvent[] => [
    mapped(type, context, data, {
      subject: callId,
      causeHint: { type: 'attention.requested', key: callId },
    }),
  ];
  if (status !== 'ok') return settle('attention.resolved', { resolution: 'dismissed' });
  let result: unknown;
  try {
    result = JSON.parse(str(extra, 'result') ?? '');
  } catch {
    // An unparseable result makes no claim about the card; the session sweep settles it.
    return [];
  }
  if (!isObject(result) || result.error !== undefined)
    return settle('attention.resolved', { resolution: 'dismissed' });
  const response = str(result, 'user_response')?.trim() ?? '';
  if (CLARIFY_TIMEOUTS.some((pattern) => pattern.test(response)))
    return settle('attention.timeout', {});
  if (response === '' || CLARIFY_DISMISSALS.has(response))
    return settle('attention.resolved', { resolution: 'dismissed' });
  const offered = Array.isArray(result.choices_offered) ? result.choices_offered : [];
  const picked = offered.findIndex((choice) => choice === response);
  const gate = gateFor('attention.answered', context);
  // A picked choice is its structural id; typed text is content (the answer.text rule).
  const value = picked >= 0 ? String(picked + 1) : gate.text(response);
  return settle('attention.answered', {
    answer: { values: value === undefined ? {} : { '1': value } },
    via: 'oob',
  });
};

const preToolCall = (
  tool: HookTool,
  state: MappingState,
  context: MappingContext,
  run: string | null,
): MappingOutcome => {
  const events = [toolRequested(tool, context, run)];
  const field =
    tool.name === CLARIFY_TOOL && tool.callId !== undefined ? clarifyField(tool.input) : undefined;
  if (field !== undefined && tool.callId !== undefined) {
    const gate = gateFor('attention.requested', context);
    const data = {
      kind: 'form',
      prompt: 'hermes asks a question',
      fields: [gateField(field, gate)],
      respond_via: ['oob'],
    };
    events.push(
      mapped('attention.requested', context, data, { subject: tool.callId, run, key: tool.callId }),
    );
  } else if (context.permissionLoop) {
    // The gate: with the permission loop on, the held hook waits for the operator's decision.
    events.push(permissionCard('hermes', tool, context, run));
  }
  return { events, state: withOpenTool(state, tool.callId, tool.name) };
};

const postToolCall = (
  call: HookCall,
  tool: HookTool,
  state: MappingState,
  context: MappingContext,
  run: string | null,
): MappingOutcome => {
  const extra = extraOf(call);
  const status = str(extra, 'status') ?? 'ok';
  const duration = int(extra, 'duration_ms');
  let event: MappedEvent;
  if (status === 'ok')
    event = toolCompleted(tool, extra.result ?? undefined, context, run, duration);
  else if (status === 'blocked')
    event = toolDenied(tool, 'policy', str(extra, 'error_message'), context, run, duration);
  else {
    // "error", or a status this mapping does not know: never claim success.
    const type = status === 'error' ? (str(extra, 'error_type') ?? 'tool_error') : status;
    event = toolFailed(tool, type, str(extra, 'error_message'), context, run, duration);
  }
  const events = [event];
  if (tool.name === CLARIFY_TOOL && tool.callId !== undefined)
    events.push(...clarifyOutcome(tool.callId, status, extra, context));
  return { events, state: withoutTool(state, tool.callId) };
};

/** The vendor's own approval menu: the choices its post hook can report. */
const APPROVAL_OPTIONS = [
  { id: 'once', label: 'Allow once' },
  { id: 'session', label: 'Allow for this session' },
  { id: 'always', label: 'Add to permanent allowlist' },
  { id: 'deny', label: 'Deny' },
];

const approvalRequest = (
  call: HookCall,
  context: MappingContext,
  run: string | null,
): MappedEvent => {
  const extra = extraOf(call);
  const pattern = str(extra, 'pattern_key');
  const gate = gateFor('attention.requested', context);
  const command = str(extra, 'command');
  const prompt =
    (command === undefined ? undefined : gate.text(`Approval requested: ${command}`)) ??
    `hermes requests permission: ${pattern ?? 'command'}`;
  const data = { kind: 'permission', prompt, options: APPROVAL_OPTIONS, respond_via: ['oob'] };
  return mapped('attention.requested', context, data, { subject: pattern, run, key: pattern });
};

const approvalResponse = (
  call: HookCall,
  context: MappingContext,
  run: string | null,
): MappedEvent => {
  const extra = extraOf(call);
  const pattern = str(extra, 'pattern_key');
  const choice = str(extra, 'choice');
  const causeHint =
    pattern === undefined ? undefined : { type: 'attention.requested', key: pattern };
  if (choice === 'timeout')
    return mapped('attention.timeout', context, {}, { subject: pattern, run, causeHint });
  const data = { answer: compact({ option: choice }), via: 'oob' };
  return mapped('attention.answered', context, data, { subject: pattern, run, causeHint });
};

const map = (call: HookCall, state: MappingState, context: MappingContext): MappingOutcome => {
  const run = call.turn ?? state.run;
  const extra = extraOf(call);
  const tool = call.tool;
  switch (call.moment) {
    case 'on_session_start': {
      const cwd = gateFor('session.started', context).text(call.cwd);
      return outcome(
        state,
        mapped('session.started', context, compact({ client: { name: 'hermes' }, cwd })),
      );
    }
    case 'pre_llm_call': {
      const turn = call.turn ?? context.newRunId();
      if (turn === state.run) return outcome(state);
      const started = runStarted(call, context, turn);
      const digest = gateFor('run.started', context).digest(call.prompt);
      const withDigest =
        started.data === undefined
          ? started
          : { ...started, data: compact({ ...started.data, message_digest: digest }) };
      return openRun(state, turn, withDigest, context);
    }
    case 'pre_tool_call':
      if (tool === undefined) break;
      return preToolCall(tool, state, context, run);
    case 'post_tool_call':
      if (tool === undefined) break;
      return postToolCall(call, tool, state, context, run);
    case 'pre_approval_request':
      return outcome(state, approvalRequest(call, context, run));
    case 'post_approval_response':
      return outcome(state, approvalResponse(call, context, run));
    case 'on_session_end':
      // Per turn, despite the name: it closes the run, never the session.
      return extra.interrupted === true
        ? closeRun(state, 'run.cancelled', { by: 'user' }, context, run)
        : closeRun(state, 'run.finished', {}, context, run);
    case 'subagent_start':
    case 'subagent_stop': {
      const child = str(extra, 'child_session_id');
      const started = call.moment === 'subagent_start';
      const type = started ? 'delegation.subagent.started' : 'delegation.subagent.stopped';
      const data = started
        ? compact({
            child: child === undefined ? undefined : { session: child },
            role: str(extra, 'child_role'),
          })
        : compact({
            child: child === undefined ? undefined : { session: child },
            status: str(extra, 'child_status'),
            duration_ms: int(extra, 'duration_ms'),
          });
      const causeHint =
        !started && child !== undefined
          ? { type: 'delegation.subagent.started', key: child }
          : undefined;
      return outcome(
        state,
        mapped(type, context, data, { subject: child, run, key: child, causeHint }),
      );
    }
    case 'api_request_error': {
      const error = obj(extra, 'error');
      const data = compact({
        status_code: int(extra, 'status_code'),
        retry_count: int(extra, 'retry_count'),
        reason: str(extra, 'reason'),
        message: gateFor('x.hermes.api.error', context).text(str(error, 'message')),
      });
      return outcome(
        state,
        mapped('x.hermes.api.error', context, data, { run, severity: 'error' }),
      );
    }
    case 'on_session_finalize':
      // Every finalize path carries the dying session's id: this is the real session end.
      return endSession(context, { reason: 'normal' });
    case 'on_session_reset':
      return outcome(
        state,
        mapped('x.hermes.session.reset', context, compact({ reason: str(extra, 'reason') })),
      );
  }
  return outcome(state, extensionEvent(hermesFallbackType(call.moment), context, run));
};

/** The Hermes Agent adapter. */
export const hermes = defineAdapter({
  profile: {
    id: 'hermes',
    name: VENDOR_NAMES.hermes,
    // The runtime reads returned context at one site only: the turn-start pre_llm_call.
    deliveryMoments: ['pre_llm_call'],
    contextCap: null,
    sessionEndMoment: 'on_session_finalize',
    // The opt-in gate: a gated pre_tool_call's reply carries the deny decision, never steering.
    permissionMoments: ['pre_tool_call'],
  },
  gatedMoments: ['pre_tool_call'],
  // The clarify tool asks the user through the vendor's own dialog (its form card is answered there).
  holds: (call) => call.tool?.name !== CLARIFY_TOOL,
  permissionReply: hermesPreToolCallDecision,
  parse,
  map,
  steeringBody: (_call, text) => ({ context: text }),
});
