/**
 * Cline CLI 3.0.65 subprocess hooks (AEP-0002 Annex A.9, corrected by payloads recorded from the
 * real CLI in test/fixtures/cline/). One script per event; the payload names the event in
 * `hookName` (`agent_start`, `tool_call`, …). Where the recordings contradict the design record:
 * the session is `sessionContext.rootSessionId` (equal to the hub `sessionId`; `taskId` changes on
 * resume), `agent_abort` never fires (an abort gives `session_shutdown` alone, so that closes the
 * run as cancelled and ends the session), and the first prompt never reaches `prompt_submit` (it
 * fires only for input steered in mid-run, so it is steering evidence, not a run start). Cline's
 * steering lever is the hub's `session.send_input` (main/core/vendors/cline/hub/), not hook context:
 * no hook moment delivers instructions.
 */
import { err, ok, type Result } from '../../../../common/result';
import { VENDOR_NAMES } from '../../../../common/vendors';
import { gateFor } from '../capture-gate';
import { defineAdapter } from '../define-adapter';
import {
  extensionEvent,
  mapped,
  runStarted,
  toolCompleted,
  toolFailed,
  toolRequested,
} from '../event-builders';
import { snakeCase } from '../fallback';
import { compact, int, isObject, nonEmpty, obj, str, type JsonObject } from '../payload-fields';
import { closeRun, openRun, outcome, withOpenTool, withoutTool } from '../runs';
import {
  INITIAL_MAPPING_STATE,
  type HookCall,
  type HookParseErrorCode,
  type HookTool,
  type MappedEvent,
  type MappingContext,
  type MappingOutcome,
  type MappingState,
} from '../types';

/** Unknown hooks land in the vendor plane: `pre_compact` → `x.cline.pre.compact`. */
export const clineFallbackType = (moment: string): string => {
  const name = snakeCase(moment);
  const split = name.indexOf('_');
  return split > 0
    ? `x.cline.${name.slice(0, split)}.${name.slice(split + 1)}`
    : `x.cline.session.${name}`;
};

/** The text inside Cline's `<user_input mode="…">` wrapper (the text the operator sent). */
export const userInputText = (prompt: string): string => {
  const match = /^<user_input[^>]*>([\s\S]*)<\/user_input>$/.exec(prompt.trim());
  return match ? match[1] : prompt;
};

const toolOf = (payload: JsonObject, moment: string): HookTool | undefined => {
  const record = obj(payload, moment === 'tool_call' ? 'tool_call' : 'tool_result');
  const legacy = obj(payload, moment === 'tool_call' ? 'preToolUse' : 'postToolUse');
  const name = nonEmpty(record, 'name') ?? nonEmpty(legacy, 'toolName');
  if (name === undefined) return undefined;
  return compact({
    name,
    callId: nonEmpty(record, 'id'),
    input: record?.input ?? legacy?.parameters,
  }) as unknown as HookTool;
};

const parse = (payload: unknown): Result<HookCall, HookParseErrorCode> => {
  const name = VENDOR_NAMES.cline;
  if (!isObject(payload))
    return err('invalid-payload', `${name} hook payload is not a JSON object`);
  const moment = nonEmpty(payload, 'hookName');
  if (moment === undefined) return err('invalid-payload', `${name} hook payload has no hookName`);
  const session =
    nonEmpty(obj(payload, 'sessionContext'), 'rootSessionId') ?? nonEmpty(payload, 'taskId');
  if (session === undefined)
    return err('invalid-payload', `${name} ${moment} payload has no sessionContext.rootSessionId`);
  const isToolMoment = moment === 'tool_call' || moment === 'tool_result';
  const tool = isToolMoment ? toolOf(payload, moment) : undefined;
  if (isToolMoment && tool === undefined)
    return err('invalid-payload', `${name} ${moment} payload names no tool`);
  const roots = Array.isArray(payload.workspaceRoots) ? payload.workspaceRoots : [];
  const cwd =
    nonEmpty(obj(payload, 'workspaceInfo'), 'rootPath') ??
    (typeof roots[0] === 'string' && roots[0] !== '' ? roots[0] : undefined);
  const call = compact({
    vendor: 'cline',
    moment,
    session,
    cwd,
    tool,
    prompt: str(obj(payload, 'userPromptSubmit'), 'prompt'),
    // A typed parent means the hook fired inside a spawned subagent.
    agentId:
      nonEmpty(payload, 'parent_agent_id') === undefined ? undefined : str(payload, 'agent_id'),
    payload,
  });
  return ok(call as unknown as HookCall);
};

const stepOf = (call: HookCall): string | undefined => {
  const iteration = int(call.payload, 'iteration');
  return iteration === undefined ? undefined : String(iteration);
};

const withStep = (events: readonly MappedEvent[], step: string | undefined): MappedEvent[] =>
  events.map((e) => (step === undefined ? e : { ...e, step }));

const subagent = (
  call: HookCall,
  state: MappingState,
  context: MappingContext,
  started: boolean,
): MappingOutcome => {
  const agent = str(call.payload, 'agent_id');
  const type = started ? 'delegation.subagent.started' : 'delegation.subagent.stopped';
  return outcome(
    state,
    mapped(
      type,
      context,
      {},
      {
        subject: agent,
        run: state.run,
        key: agent,
        causeHint:
          !started && agent !== undefined
            ? { type: 'delegation.subagent.started', key: agent }
            : undefined,
      },
    ),
  );
};

const startRun = (
  call: HookCall,
  state: MappingState,
  context: MappingContext,
  trigger: 'user' | 'resume',
): MappingOutcome => {
  const events: MappedEvent[] = [];
  // Cline has no session-start hook: a task starting with no run open starts (or revives) the session.
  if (state.run === null) {
    const cwd = gateFor('session.started', context).text(call.cwd);
    events.push(
      mapped(
        'session.started',
        context,
        compact({
          client: { name: 'cline' },
          trigger: trigger === 'user' ? 'startup' : 'resume',
          cwd,
        }),
      ),
    );
  }
  const run = context.newRunId();
  const started = runStarted(call, context, run);
  const data = started.data === undefined ? undefined : { ...started.data, trigger };
  const opened = openRun(state, run, { ...started, ...(data ? { data } : {}) }, context);
  return { events: [...events, ...opened.events], state: opened.state };
};

const toolResult = (
  call: HookCall,
  tool: HookTool,
  state: MappingState,
  context: MappingContext,
): MappingOutcome => {
  const record = obj(call.payload, 'tool_result') ?? {};
  const post = obj(call.payload, 'postToolUse') ?? {};
  const duration = int(record, 'durationMs') ?? int(post, 'executionTimeMs');
  const output = record.output ?? undefined;
  const failed = record.error !== undefined || post.success === false;
  let event: MappedEvent;
  if (failed) {
    // The recorded `error` is often "[object Object]": the structured output says what went wrong.
    const detail = isObject(output) ? str(output, 'error') : undefined;
    const message = detail ?? str(record, 'error') ?? str(post, 'result');
    event = toolFailed(tool, 'tool_error', message, context, state.run, duration);
  } else {
    // The AEP result is an object or a string: an array of command results rides as the text the model saw.
    const result =
      isObject(output) || typeof output === 'string'
        ? output
        : (str(post, 'result') ?? JSON.stringify(output ?? null));
    event = toolCompleted(tool, result, context, state.run, duration);
  }
  return { events: [event], state: withoutTool(state, tool.callId) };
};

const runError = (call: HookCall, context: MappingContext): Record<string, unknown> => {
  const error = obj(call.payload, 'error');
  const reason = nonEmpty(error, 'name') ?? 'error';
  const message = gateFor('run.failed', context).text(str(error, 'message'));
  return compact({ reason, error: compact({ type: reason, message }) });
};

const map = (call: HookCall, state: MappingState, context: MappingContext): MappingOutcome => {
  const step = stepOf(call);
  const sub = call.agentId !== undefined;
  const result = ((): MappingOutcome => {
    switch (call.moment) {
      case 'agent_start':
        return sub ? subagent(call, state, context, true) : startRun(call, state, context, 'user');
      case 'agent_resume':
        return sub
          ? subagent(call, state, context, true)
          : startRun(call, state, context, 'resume');
      case 'agent_end': {
        if (sub) return subagent(call, state, context, false);
        const status = str(obj(call.payload, 'turn'), 'status') ?? 'completed';
        if (status === 'aborted' || status === 'cancelled')
          return closeRun(state, 'run.cancelled', { by: 'user' }, context);
        if (status === 'failed' || status === 'error')
          return closeRun(state, 'run.failed', { reason: status }, context, state.run, 'error');
        return closeRun(state, 'run.finished', {}, context);
      }
      case 'agent_abort':
        if (sub) return subagent(call, state, context, false);
        return closeRun(state, 'run.cancelled', { by: 'user' }, context);
      case 'agent_error':
        if (sub) return subagent(call, state, context, false);
        return closeRun(state, 'run.failed', runError(call, context), context, state.run, 'error');
      case 'tool_call': {
        const tool = call.tool as HookTool;
        return outcome(
          withOpenTool(state, tool.callId, tool.name),
          toolRequested(tool, context, state.run),
        );
      }
      case 'tool_result':
        return toolResult(call, call.tool as HookTool, state, context);
      case 'prompt_submit': {
        // Fired only for input steered in mid-run: the evidence that steered text reached the agent.
        const text = userInputText(call.prompt ?? '');
        const gate = gateFor('x.cline.prompt.submitted', context);
        const data = compact({ text_digest: gate.digest(text), chars: text.length });
        return outcome(
          state,
          mapped('x.cline.prompt.submitted', context, data, { run: state.run }),
        );
      }
      case 'session_shutdown': {
        // The only hook an abort gives (agent_abort never fires): the run was cancelled, then the session ended.
        const events =
          state.run === null
            ? []
            : closeRun(state, 'run.cancelled', { by: 'user' }, context).events;
        return {
          events: [...events, mapped('session.ended', context, { reason: 'normal' })],
          state: INITIAL_MAPPING_STATE,
        };
      }
    }
    return outcome(state, extensionEvent(clineFallbackType(call.moment), context, state.run));
  })();
  return { events: withStep(result.events, step), state: result.state };
};

/** The Cline adapter: observed through hooks; steered through the hub (x.cline.control.send_input). */
export const cline = defineAdapter({
  profile: {
    id: 'cline',
    name: VENDOR_NAMES.cline,
    // Hook context does reach the model, but Cline's steering verb is the hub's send_input (design record).
    deliveryMoments: [],
    contextCap: null,
    sessionEndMoment: 'session_shutdown',
    permissionMoments: [],
  },
  parse,
  map,
  steeringBody: () => ({}),
});
