/**
 * Qwen Code (AEP-0002 Annex A.4, pinned by the qwen-code mapping fixture), the Claude-Code-shaped
 * sibling. No turn id: runs are synthesized per UserPromptSubmit. Deviations: PreCompact emits
 * nothing; the `permission_prompt` notification is left to PermissionRequest; todo hooks fire twice
 * per write and only the persisted (non-validation) firing is an event.
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
  toolFailed,
  toolRequested,
} from './event-builders';
import { fallbackType } from './fallback';
import { permissionRequestDecision } from './permission-answers';
import { compact, int, str } from './payload-fields';
import { closeRun, endSession, openRun, outcome, withOpenTool, withoutTool } from './runs';
import type { HookCall, MappedEvent, MappingContext, MappingOutcome, MappingState } from './types';

const todoEvent = (
  type: 'progress.task.planned' | 'progress.task.completed',
  call: HookCall,
  context: MappingContext,
  run: string | null,
): MappedEvent => {
  const id = str(call.payload, 'todo_id');
  const title = gateFor(type, context).text(str(call.payload, 'todo_content'));
  // The all_todos snapshot is deliberately not forwarded: one todo per event.
  return mapped(type, context, title === undefined ? {} : { task: compact({ id, title }) }, {
    subject: id,
    run,
  });
};

const map = (call: HookCall, state: MappingState, context: MappingContext): MappingOutcome => {
  const { run } = state;
  const tool = call.tool;
  switch (call.moment) {
    case 'SessionStart':
      return outcome(
        state,
        sessionStarted('qwen-code', call, context, {
          permission_mode: str(call.payload, 'permission_mode'),
        }),
      );
    case 'SessionEnd':
      return endSession(context, { reason: 'normal' });
    case 'UserPromptSubmit': {
      // The CLI also fires this hook mid-turn, with an empty prompt, before each continuation
      // request: that is the same run going on, not a new one.
      if (state.run !== null && (call.prompt ?? '').trim() === '') return outcome(state);
      const next = context.newRunId();
      return openRun(state, next, runStarted(call, context, next), context);
    }
    case 'Stop':
      return closeRun(
        state,
        'run.finished',
        compact({ 'gen_ai.usage.input_tokens': int(call.payload, 'input_tokens') }),
        context,
      );
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
        toolCompleted(tool, call.payload.tool_response, context, run),
      );
    case 'PostToolUseFailure': {
      if (tool === undefined) break;
      const type = call.payload.is_interrupt === true ? 'interrupt' : 'tool_error';
      return outcome(
        withoutTool(state, tool.callId),
        toolFailed(tool, type, str(call.payload, 'error'), context, run),
      );
    }
    case 'PermissionRequest':
      if (tool === undefined) break;
      return outcome(state, permissionCard('qwen-code', tool, context, run));
    case 'SubagentStart':
      return outcome(state, subagentEvent('delegation.subagent.started', call, context, run));
    case 'SubagentStop':
      return outcome(state, subagentEvent('delegation.subagent.stopped', call, context, run));
    case 'PreCompact':
      return outcome(state);
    case 'PostCompact':
      return outcome(state, sessionCompacted(call, context));
    case 'Notification': {
      const kind = str(call.payload, 'notification_type');
      if (kind === 'permission_prompt') return outcome(state);
      const message = gateFor('progress.status', context).text(str(call.payload, 'message'));
      return outcome(
        state,
        mapped('progress.status', context, compact({ message }), { subject: kind, run }),
      );
    }
    case 'TodoCreated':
    case 'TodoCompleted': {
      // The validation firing precedes persistence; an absent or unknown phase still emits.
      if (str(call.payload, 'phase') === 'validation') return outcome(state);
      const type =
        call.moment === 'TodoCreated' ? 'progress.task.planned' : 'progress.task.completed';
      return outcome(state, todoEvent(type, call, context, run));
    }
  }
  return outcome(state, extensionEvent(fallbackType('qwen-code', call.moment), context, run));
};

/** The Qwen Code adapter. */
export const qwenCode = defineAdapter({
  profile: {
    id: 'qwen-code',
    name: VENDOR_NAMES['qwen-code'],
    // Proven per pinned CLI version by test/vendors/harness.test.ts: Qwen Code 0.24.4 reads
    // SessionStart, UserPromptSubmit (also fired mid-turn) and PostToolUse context (appended to
    // the tool result); PreToolUse and Stop context never reach the model.
    deliveryMoments: ['SessionStart', 'UserPromptSubmit', 'PostToolUse'],
    // The HTTP hook runner truncates longer context: keep each reply within it so nothing is cut.
    contextCap: 10_000,
    sessionEndMoment: 'SessionEnd',
    permissionMoments: ['PermissionRequest'],
  },
  parse: (payload) => parseFamilyPayload('qwen-code', payload),
  map,
  steeringBody: (call, text) => additionalContextReply(call.moment, text),
  permissionReply: (call, answer, context) =>
    permissionRequestDecision(VENDOR_NAMES['qwen-code'], call, answer, context),
});
