/**
 * Qwen Code (AEP-0002 Annex A.4, pinned by the qwen-code mapping fixture), the Claude-Code-shaped
 * sibling. No turn id: runs are synthesized per UserPromptSubmit. Deviations: PreCompact emits
 * nothing; the `permission_prompt` notification is left to PermissionRequest; todo hooks fire twice
 * per write and only the persisted (non-validation) firing is an event.
 */
import { VENDOR_NAMES } from '../../../../common/vendors';
import { additionalContextReply, parseFamilyPayload } from '../claude-family';
import { defineAdapter } from '../define-adapter';
import { extensionEvent, permissionCard, runStarted, sessionStarted } from '../event-builders';
import { mapFamilyMoment, taskEvent, type FamilyMoments } from '../family-moments';
import { fallbackType } from '../fallback';
import { permissionRequestDecision } from '../permission-answers';
import { compact, int, str } from '../payload-fields';
import { closeRun, openRun, outcome } from '../runs';
import type { HookCall, MappingContext, MappingOutcome, MappingState } from '../types';

/** Qwen Code's todo hooks name the todo by `todo_id` and `todo_content` (its all_todos snapshot is not forwarded). */
const TODO_FIELDS = { id: 'todo_id', title: 'todo_content' } as const;

const FAMILY: FamilyMoments = {
  toolDurations: false,
  // Already carried by PermissionRequest.
  duplicateNotifications: new Set(['permission_prompt']),
};

const map = (call: HookCall, state: MappingState, context: MappingContext): MappingOutcome => {
  const shared = mapFamilyMoment(call, state, context, FAMILY);
  if (shared !== undefined) return shared;
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
    case 'PermissionRequest':
      if (tool === undefined) break;
      return outcome(state, permissionCard('qwen-code', tool, context, run));
    case 'TodoCreated':
    case 'TodoCompleted': {
      // The validation firing precedes persistence; an absent or unknown phase still emits.
      if (str(call.payload, 'phase') === 'validation') return outcome(state);
      const type =
        call.moment === 'TodoCreated' ? 'progress.task.planned' : 'progress.task.completed';
      return outcome(state, taskEvent(type, TODO_FIELDS, call, context, run));
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
