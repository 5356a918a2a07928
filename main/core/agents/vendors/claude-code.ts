/**
 * Claude Code (AEP-0002 Annex A.1; the form mappings pinned by the claude-code mapping fixture).
 * CC turn = AEP run, synthesized per UserPromptSubmit (named by `prompt_id` when the CLI sends one).
 * Deviations: PreCompact emits nothing; AskUserQuestion is one `kind: "form"` request per call, not
 * a permission card; permission and elicitation notifications are left to their first-class hooks;
 * TeammateIdle stays on the vendor plane, since `agent.idle` is agent-scoped and every event this
 * adapter emits belongs to the hook's session.
 */
import { VENDOR_NAMES } from '../../../../common/vendors';
import { gateFor } from './capture-gate';
import { additionalContextReply, parseFamilyPayload } from './claude-family';
import { defineAdapter } from './define-adapter';
import {
  extensionEvent,
  mapped,
  permissionCard,
  runFailedData,
  runStarted,
  sessionCompacted,
  sessionStarted,
  subagentEvent,
  toolCompleted,
  toolDenied,
  toolFailed,
  toolRequested,
} from './event-builders';
import { fallbackType } from './fallback';
import { askUserQuestionFields, elicitationFields, gateField } from './forms';
import {
  decideAskUserQuestion,
  decideElicitation,
  permissionRequestDecision,
} from './permission-answers';
import { compact, int, nonEmpty, obj, str } from './payload-fields';
import { closeRun, endSession, openRun, outcome, withOpenTool, withoutTool } from './runs';
import type { HookCall, MappedEvent, MappingContext, MappingOutcome, MappingState } from './types';

/** The tool through which Claude Code asks the user structured questions. */
export const ASK_USER_QUESTION = 'AskUserQuestion';

const respondVia = (context: MappingContext): string[] => [
  context.permissionLoop ? 'control' : 'oob',
];

/** `attention.requested (kind=form)` data for one AskUserQuestion call: one field per question. */
export const askUserQuestionData = (
  input: unknown,
  context: MappingContext,
): Record<string, unknown> | undefined => {
  const fields = askUserQuestionFields(input);
  if (fields === undefined) return undefined;
  const gate = gateFor('attention.requested', context);
  const count = fields.length;
  return {
    kind: 'form',
    prompt: `claude-code asks ${count} question${count === 1 ? '' : 's'}`,
    fields: fields.map((field) => gateField(field, gate)),
    respond_via: respondVia(context),
  };
};

/** `attention.requested (kind=form)` data for an MCP elicitation: the server's message and flat schema. */
export const elicitationData = (
  message: string | undefined,
  schema: unknown,
  context: MappingContext,
): Record<string, unknown> => {
  const fields = elicitationFields(schema);
  const gate = gateFor('attention.requested', context);
  const count = fields.length;
  return {
    kind: 'form',
    prompt:
      gate.text(message) ?? `claude-code requests input (${count} field${count === 1 ? '' : 's'})`,
    fields: fields.map((field) => gateField(field, gate)),
    respond_via: respondVia(context),
  };
};

const progressTask = (
  type: 'progress.task.planned' | 'progress.task.completed',
  call: HookCall,
  context: MappingContext,
  run: string | null,
): MappedEvent => {
  const id = str(call.payload, 'task_id');
  const title = gateFor(type, context).text(str(call.payload, 'task_subject'));
  return mapped(type, context, title === undefined ? {} : { task: compact({ id, title }) }, {
    subject: id,
    run,
  });
};

/** Notification subtypes already carried by a first-class hook (PermissionRequest, Elicitation). */
const DUPLICATE_NOTIFICATIONS = new Set(['permission_prompt', 'elicitation_dialog']);

const map = (call: HookCall, state: MappingState, context: MappingContext): MappingOutcome => {
  const { run } = state;
  const tool = call.tool;
  switch (call.moment) {
    case 'SessionStart':
      return outcome(state, sessionStarted('claude-code', call, context));
    case 'SessionEnd':
      // Vendor reasons (clear, logout, prompt_input_exit, …) are all ordinary ends.
      return endSession(context, { reason: 'normal' });
    case 'UserPromptSubmit': {
      const promptId = nonEmpty(call.payload, 'prompt_id');
      if (promptId !== undefined && promptId === state.run) return outcome(state);
      const next = promptId ?? context.newRunId();
      return openRun(state, next, runStarted(call, context, next), context);
    }
    case 'Stop':
      return closeRun(state, 'run.finished', {}, context);
    case 'StopFailure':
      return closeRun(state, 'run.failed', runFailedData(call, context), context, run, 'error');
    case 'PreToolUse':
      if (tool === undefined) break;
      return outcome(
        withOpenTool(state, tool.callId, tool.name),
        toolRequested(tool, context, run),
      );
    case 'PostToolUse':
      if (tool === undefined) break;
      return outcome(
        withoutTool(state, tool.callId),
        toolCompleted(
          tool,
          call.payload.tool_response,
          context,
          run,
          int(call.payload, 'duration_ms'),
        ),
      );
    case 'PostToolUseFailure': {
      if (tool === undefined) break;
      const type = call.payload.is_interrupt === true ? 'interrupt' : 'tool_error';
      const failed = toolFailed(
        tool,
        type,
        str(call.payload, 'error'),
        context,
        run,
        int(call.payload, 'duration_ms'),
      );
      return outcome(withoutTool(state, tool.callId), failed);
    }
    case 'PermissionDenied':
      if (tool === undefined) break;
      // Only the auto-mode classifier fires this hook: a policy decision, not a human one.
      return outcome(
        withoutTool(state, tool.callId),
        toolDenied(tool, 'policy', str(call.payload, 'reason'), context, run),
      );
    case 'PermissionRequest': {
      if (tool === undefined) break;
      const form =
        tool.name === ASK_USER_QUESTION ? askUserQuestionData(tool.input, context) : undefined;
      if (form !== undefined)
        return outcome(
          state,
          mapped('attention.requested', context, form, { subject: tool.name, run }),
        );
      return outcome(state, permissionCard('claude-code', tool, context, run));
    }
    case 'Elicitation': {
      const server = str(call.payload, 'mcp_server_name');
      const schema = obj(call.payload, 'requested_schema') ?? obj(call.payload, 'requestedSchema');
      const data = elicitationData(str(call.payload, 'message'), schema, context);
      const key = nonEmpty(call.payload, 'elicitation_id') ?? server;
      return outcome(
        state,
        mapped('attention.requested', context, data, { subject: server, run, key }),
      );
    }
    case 'ElicitationResult': {
      const server = str(call.payload, 'mcp_server_name');
      const key = nonEmpty(call.payload, 'elicitation_id') ?? server;
      const action = str(call.payload, 'action');
      const resolution = action === 'accept' ? 'answered' : 'dismissed';
      return outcome(
        state,
        mapped(
          'attention.resolved',
          context,
          { resolution },
          {
            subject: server,
            run,
            causeHint: key === undefined ? undefined : { type: 'attention.requested', key },
          },
        ),
      );
    }
    case 'SubagentStart':
      return outcome(state, subagentEvent('delegation.subagent.started', call, context, run));
    case 'SubagentStop':
      return outcome(state, subagentEvent('delegation.subagent.stopped', call, context, run));
    case 'PreCompact':
      return outcome(state);
    case 'PostCompact':
      return outcome(state, sessionCompacted(call, context));
    case 'TaskCreated':
      return outcome(state, progressTask('progress.task.planned', call, context, run));
    case 'TaskCompleted':
      return outcome(state, progressTask('progress.task.completed', call, context, run));
    case 'Notification': {
      const kind = str(call.payload, 'notification_type');
      if (kind !== undefined && DUPLICATE_NOTIFICATIONS.has(kind)) return outcome(state);
      const message = gateFor('progress.status', context).text(str(call.payload, 'message'));
      return outcome(
        state,
        mapped('progress.status', context, compact({ message }), { subject: kind, run }),
      );
    }
  }
  return outcome(state, extensionEvent(fallbackType('claude-code', call.moment), context, run));
};

/** The Claude Code adapter. */
export const claudeCode = defineAdapter({
  profile: {
    id: 'claude-code',
    name: VENDOR_NAMES['claude-code'],
    // Verified against the real CLI: context from these replies reaches the next model request.
    deliveryMoments: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse'],
    // Longer context is spilled to a file and replaced by a preview: keep each reply within it.
    contextCap: 10_000,
    sessionEndMoment: 'SessionEnd',
    permissionMoments: ['PermissionRequest', 'Elicitation'],
  },
  parse: (payload) => parseFamilyPayload('claude-code', payload),
  map,
  steeringBody: (call, text) => additionalContextReply(call.moment, text),
  permissionReply: (call, answer, context) => {
    if (call.moment === 'Elicitation') return decideElicitation(call, answer, context);
    if (
      call.moment === 'PermissionRequest' &&
      call.tool?.name === ASK_USER_QUESTION &&
      askUserQuestionFields(call.tool.input) !== undefined
    ) {
      return decideAskUserQuestion(call, answer, context);
    }
    return permissionRequestDecision(VENDOR_NAMES['claude-code'], call, answer, context);
  },
});
