/**
 * Codex CLI (AEP-0002 Annex A.2, pinned by the codex mapping fixture). Codex thread = AEP session,
 * `turn_id` = AEP run. Deviations: PreCompact emits nothing (compaction is reported once, at
 * PostCompact); there is no tool-failure hook, so failed tools still arrive as `tool.completed`.
 */
import { VENDOR_NAMES } from '../../../../common/vendors';
import { additionalContextReply, parseFamilyPayload } from '../claude-family';
import { defineAdapter } from '../define-adapter';
import {
  extensionEvent,
  permissionCard,
  runStarted,
  sessionCompacted,
  sessionStarted,
  subagentEvent,
  toolCompleted,
  toolRequested,
} from '../event-builders';
import { fallbackType } from '../fallback';
import { permissionRequestDecision } from '../permission-answers';
import { closeRun, openRun, outcome, withOpenTool, withoutTool } from '../runs';
import type { HookCall, MappingContext, MappingOutcome, MappingState } from '../types';

const map = (call: HookCall, state: MappingState, context: MappingContext): MappingOutcome => {
  const run = call.turn ?? state.run;
  switch (call.moment) {
    case 'SessionStart':
      return outcome(state, sessionStarted('codex', call, context));
    case 'UserPromptSubmit': {
      const turn = call.turn ?? context.newRunId();
      // A repeated prompt hook for the turn already open adds nothing.
      if (turn === state.run) return outcome(state);
      return openRun(state, turn, runStarted(call, context, turn), context);
    }
    case 'Stop':
      return closeRun(state, 'run.finished', {}, context, run);
    case 'PreToolUse':
      if (call.tool === undefined) break;
      return outcome(
        withOpenTool(state, call.tool.callId, call.tool.name),
        toolRequested(call.tool, context, run),
      );
    case 'PostToolUse':
      if (call.tool === undefined) break;
      // Non-zero exits land here too: Codex reports no tool failure through its hooks.
      return outcome(
        withoutTool(state, call.tool.callId),
        toolCompleted(call.tool, call.payload.tool_response, context, run),
      );
    case 'PermissionRequest':
      if (call.tool === undefined) break;
      return outcome(state, permissionCard('codex', call.tool, context, run));
    case 'SubagentStart':
      return outcome(state, subagentEvent('delegation.subagent.started', call, context, run));
    case 'SubagentStop':
      return outcome(state, subagentEvent('delegation.subagent.stopped', call, context, run));
    case 'PreCompact':
      return outcome(state);
    case 'PostCompact':
      return outcome(state, sessionCompacted(call, context));
  }
  return outcome(state, extensionEvent(fallbackType('codex', call.moment), context, run));
};

/** The Codex CLI adapter. */
export const codex = defineAdapter({
  profile: {
    id: 'codex',
    name: VENDOR_NAMES.codex,
    // Proven per pinned CLI version by test/vendors/harness.test.ts: Codex 0.171.0 reads context
    // from all four (PostToolUse arrives as a developer message); Stop context is not read.
    deliveryMoments: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse'],
    contextCap: null,
    sessionEndMoment: null,
    permissionMoments: ['PermissionRequest'],
  },
  parse: (payload) => parseFamilyPayload('codex', payload),
  map,
  // Codex validates hook output against strict schemas: its no-op is empty stdout, not `{}`.
  emptyCommandOutput: '',
  steeringBody: (call, text) => additionalContextReply(call.moment, text),
  permissionReply: (call, answer, context) =>
    permissionRequestDecision(VENDOR_NAMES.codex, call, answer, context),
});
