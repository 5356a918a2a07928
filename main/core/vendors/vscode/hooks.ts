/**
 * The VS Code agent (AEP-0002 Annex A.5, pinned by the vscode mapping fixture): the Claude Code
 * hook contract on an 8-event Preview surface. `session_id` is optional (missing → the `unknown`
 * lane); runs are synthesized per UserPromptSubmit. Deviation: PreCompact is the only compaction
 * moment, so it carries `session.compacted`. No session end, no tool or run failure moments exist.
 * Steering rides additionalContext on the five moments the pinned source types and consumes
 * (SessionStart, UserPromptSubmit, SubagentStart, PreToolUse, PostToolUse; SubagentStart's reaches
 * the subagent it starts). The opt-in permission gate holds PreToolUse while the session's
 * permission loop is on: its card is answerable and its reply carries the decision, never steering.
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
import { str } from '../payload-fields';
import { closeRun, openRun, outcome, withOpenTool, withoutTool } from '../runs';
import { vscodePreToolUseDecision } from '../tool-gates';
import type { HookCall, MappingContext, MappingOutcome, MappingState } from '../types';

const map = (call: HookCall, state: MappingState, context: MappingContext): MappingOutcome => {
  const { run } = state;
  const tool = call.tool;
  switch (call.moment) {
    case 'SessionStart':
      // transcript_path is a workstation-local path and is never forwarded.
      return outcome(
        state,
        sessionStarted('vscode', call, context, { agent_type: str(call.payload, 'agent_type') }),
      );
    case 'UserPromptSubmit': {
      const next = context.newRunId();
      return openRun(state, next, runStarted(call, context, next), context);
    }
    case 'Stop':
      return closeRun(state, 'run.finished', {}, context);
    case 'PreToolUse':
      if (tool === undefined) break;
      return outcome(
        withOpenTool(state, tool.callId, tool.name),
        toolRequested(tool, context, run),
        // The gate: with the permission loop on, the held hook waits for the operator's decision.
        ...(context.permissionLoop ? [permissionCard('vscode', tool, context, run)] : []),
      );
    case 'PostToolUse':
      if (tool === undefined) break;
      return outcome(
        withoutTool(state, tool.callId),
        toolCompleted(tool, call.payload.tool_response, context, run),
      );
    case 'PreCompact':
      return outcome(state, sessionCompacted(call, context));
    case 'SubagentStart':
      return outcome(state, subagentEvent('delegation.subagent.started', call, context, run));
    case 'SubagentStop':
      return outcome(state, subagentEvent('delegation.subagent.stopped', call, context, run));
  }
  return outcome(state, extensionEvent(fallbackType('vscode', call.moment), context, run));
};

/** The VS Code agent adapter. */
export const vscode = defineAdapter({
  profile: {
    id: 'vscode',
    name: VENDOR_NAMES.vscode,
    // Typed and consumed in the pinned source (microsoft/vscode 1.129.0, seed 000's row); the
    // docs' note that UserPromptSubmit uses the common output only is older than that source.
    deliveryMoments: ['SessionStart', 'UserPromptSubmit', 'SubagentStart', 'PreToolUse', 'PostToolUse'],
    contextCap: null,
    sessionEndMoment: null,
    permissionMoments: ['PreToolUse'],
  },
  gatedMoments: ['PreToolUse'],
  parentMoments: ['SubagentStart'],
  permissionReply: vscodePreToolUseDecision,
  parse: (payload) =>
    parseFamilyPayload('vscode', payload, { sessionOptional: true, camelCaseEnvelope: true }),
  map,
  steeringBody: (call, text) => additionalContextReply(call.moment, text),
});
