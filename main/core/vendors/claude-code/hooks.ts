/**
 * Claude Code (AEP-0002 Annex A.1; the form mappings pinned by the claude-code mapping fixture).
 * CC turn = AEP run, synthesized per UserPromptSubmit (named by `prompt_id` when the CLI sends one).
 * Deviations: PreCompact emits nothing; AskUserQuestion is one `kind: "form"` request per call, not
 * a permission card; permission and elicitation notifications are left to their first-class hooks;
 * TeammateIdle stays on the vendor plane, since `agent.idle` is agent-scoped and every event this
 * adapter emits belongs to the hook's session.
 */
import { VENDOR_NAMES } from '../../../../common/vendors';
import { gateFor } from '../capture-gate';
import { additionalContextReply, parseFamilyPayload } from '../claude-family';
import { defineAdapter } from '../define-adapter';
import {
  extensionEvent,
  mapped,
  permissionCard,
  runStarted,
  sessionStarted,
  toolDenied,
} from '../event-builders';
import { mapFamilyMoment, taskEvent, type FamilyMoments } from '../family-moments';
import { fallbackType } from '../fallback';
import { askUserQuestionFields, elicitationFields, gateField } from '../forms';
import {
  decideAskUserQuestion,
  decideElicitation,
  permissionRequestDecision,
} from '../permission-answers';
import { nonEmpty, obj, str } from '../payload-fields';
import { closeRun, openRun, outcome, withoutTool } from '../runs';
import type { HookCall, MappingContext, MappingOutcome, MappingState } from '../types';

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

/** Claude Code's task hooks name the task by `task_id` and `task_subject`. */
const TASK_FIELDS = { id: 'task_id', title: 'task_subject' } as const;

const FAMILY: FamilyMoments = {
  toolDurations: true,
  // Already carried by a first-class hook (PermissionRequest, Elicitation).
  duplicateNotifications: new Set(['permission_prompt', 'elicitation_dialog']),
};

const map = (call: HookCall, state: MappingState, context: MappingContext): MappingOutcome => {
  const shared = mapFamilyMoment(call, state, context, FAMILY);
  if (shared !== undefined) return shared;
  const { run } = state;
  const tool = call.tool;
  switch (call.moment) {
    case 'SessionStart':
      return outcome(state, sessionStarted('claude-code', call, context));
    case 'UserPromptSubmit': {
      const promptId = nonEmpty(call.payload, 'prompt_id');
      if (promptId !== undefined && promptId === state.run) return outcome(state);
      const next = promptId ?? context.newRunId();
      return openRun(state, next, runStarted(call, context, next), context);
    }
    case 'Stop':
      return closeRun(state, 'run.finished', {}, context);
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
    case 'TaskCreated':
      return outcome(state, taskEvent('progress.task.planned', TASK_FIELDS, call, context, run));
    case 'TaskCompleted':
      return outcome(state, taskEvent('progress.task.completed', TASK_FIELDS, call, context, run));
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
