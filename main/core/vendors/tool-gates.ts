/**
 * The opt-in tool gates of the VS Code agent (a held `PreToolUse`) and Hermes (a gated
 * `pre_tool_call`): while the session's permission loop is on, the moment is held and its reply
 * carries the operator's decision, never steering; while it is off, the moment is an ordinary one.
 * Decisions follow AEP-0008 (allow / deny / free text that denies with the text as the reason).
 */
import { err, ok, type Result } from '../../../common/result';
import { decidePermission } from './permission-answers';
import type { AttentionAnswer, HookCall, MappingContext, PermissionDecision, ReplyErrorCode } from './types';

const notGated = (vendor: string, call: HookCall, moment: string): Result<PermissionDecision, ReplyErrorCode> =>
  err('not-a-permission-moment', `${vendor} ${call.moment} is not its gated moment (${moment})`);

/** VS Code `PreToolUse`: `{ hookSpecificOutput: { hookEventName, permissionDecision, permissionDecisionReason? } }`. */
export function vscodePreToolUseDecision(call: HookCall, answer: AttentionAnswer, context: MappingContext): Result<PermissionDecision, ReplyErrorCode> {
  if (call.moment !== 'PreToolUse') return notGated('VS Code agent', call, 'PreToolUse');
  const decided = decidePermission(answer, context);
  if (!decided.ok) return decided;
  const { verdict, answered } = decided.value;
  const reason = verdict.behavior === 'deny' && verdict.message !== undefined ? { permissionDecisionReason: verdict.message } : {};
  return ok({ reply: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: verdict.behavior, ...reason } }, answered });
}

/** Hermes gated `pre_tool_call`: allow is the empty reply; deny is `{ action: "block", message }` (never empty). */
export function hermesPreToolCallDecision(call: HookCall, answer: AttentionAnswer, context: MappingContext): Result<PermissionDecision, ReplyErrorCode> {
  if (call.moment !== 'pre_tool_call') return notGated('Hermes', call, 'pre_tool_call');
  const decided = decidePermission(answer, context);
  if (!decided.ok) return decided;
  const { verdict, answered } = decided.value;
  const reply = verdict.behavior === 'allow' ? {} : { action: 'block', message: verdict.message !== undefined && verdict.message !== '' ? verdict.message : 'Denied by the operator.' };
  return ok({ reply, answered });
}
