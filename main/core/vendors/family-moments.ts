/**
 * The hook moments Claude Code and Qwen Code (its Claude-Code-shaped sibling) map the same way:
 * session end, a failed turn, the tool lifecycle, subagents, compaction and notifications, and the
 * task events both derive from their own task hooks. Each adapter maps the rest itself and falls
 * back to an extension event for what neither handles.
 */
import { gateFor } from './capture-gate';
import {
  mapped,
  runFailedData,
  sessionCompacted,
  subagentEvent,
  toolCompleted,
  toolFailed,
  toolRequested,
} from './event-builders';
import { compact, int, str } from './payload-fields';
import { closeRun, endSession, outcome, withOpenTool, withoutTool } from './runs';
import type { HookCall, MappedEvent, MappingContext, MappingOutcome, MappingState } from './types';

/** Where the vendors of the family differ inside the moments they share. */
export interface FamilyMoments {
  /** Whether the tool hooks carry `duration_ms` (Claude Code) or not (Qwen Code). */
  readonly toolDurations: boolean;
  /** Notification subtypes already carried by a first-class hook: emitting them again would duplicate it. */
  readonly duplicateNotifications: ReadonlySet<string>;
}

/**
 * The shared moments' outcome, or undefined when the vendor maps this moment itself (or a tool
 * moment arrived without a tool, which the vendor's fallback then takes).
 */
export function mapFamilyMoment(
  call: HookCall,
  state: MappingState,
  context: MappingContext,
  family: FamilyMoments,
): MappingOutcome | undefined {
  const { run } = state;
  const tool = call.tool;
  const duration = (): number | undefined =>
    family.toolDurations ? int(call.payload, 'duration_ms') : undefined;
  switch (call.moment) {
    case 'SessionEnd':
      // Vendor reasons (clear, logout, prompt_input_exit, …) are all ordinary ends.
      return endSession(context, { reason: 'normal' });
    case 'StopFailure':
      return closeRun(state, 'run.failed', runFailedData(call, context), context, run, 'error');
    case 'PreToolUse':
      if (tool === undefined) return undefined;
      return outcome(
        withOpenTool(state, tool.callId, tool.name),
        toolRequested(tool, context, run),
      );
    case 'PostToolUse':
      if (tool === undefined) return undefined;
      return outcome(
        withoutTool(state, tool.callId),
        toolCompleted(tool, call.payload.tool_response, context, run, duration()),
      );
    case 'PostToolUseFailure': {
      if (tool === undefined) return undefined;
      const type = call.payload.is_interrupt === true ? 'interrupt' : 'tool_error';
      const failed = toolFailed(tool, type, str(call.payload, 'error'), context, run, duration());
      return outcome(withoutTool(state, tool.callId), failed);
    }
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
      if (kind !== undefined && family.duplicateNotifications.has(kind)) return outcome(state);
      const message = gateFor('progress.status', context).text(str(call.payload, 'message'));
      return outcome(
        state,
        mapped('progress.status', context, compact({ message }), { subject: kind, run }),
      );
    }
  }
  return undefined;
}

/**
 * One task as `progress.task.planned` / `progress.task.completed`, from the payload fields that
 * name the task's id and title (Claude Code: `task_id`, `task_subject`; Qwen Code: `todo_id`,
 * `todo_content`). Only the one task is forwarded, never a snapshot of all of them.
 */
export function taskEvent(
  type: 'progress.task.planned' | 'progress.task.completed',
  fields: { readonly id: string; readonly title: string },
  call: HookCall,
  context: MappingContext,
  run: string | null,
): MappedEvent {
  const id = str(call.payload, fields.id);
  const title = gateFor(type, context).text(str(call.payload, fields.title));
  return mapped(type, context, title === undefined ? {} : { task: compact({ id, title }) }, {
    subject: id,
    run,
  });
}
