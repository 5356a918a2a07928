/**
 * The hook contract Claude Code introduced and Codex, Qwen Code and the VS Code agent adopted:
 * payload fields (`hook_event_name`, `session_id`, `tool_name`, …) and the `hookSpecificOutput` reply.
 */
import { err, ok, type Result } from '../../../common/result';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { isObject, nonEmpty, str } from './payload-fields';
import type { HookCall, HookParseErrorCode, HookReply } from './types';

/** Moments about one tool call: their payload must name the tool. */
const TOOL_MOMENTS = new Set([
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'PermissionDenied',
]);

/** How one vendor of the family deviates in its payload envelope. */
export interface FamilyParseOptions {
  /** The vendor documents `session_id` as optional: a missing one lands on the `unknown` lane. */
  readonly sessionOptional?: boolean;
  /** The vendor's docs also show camelCase envelope keys (`sessionId`, `hookEventName`). */
  readonly camelCaseEnvelope?: boolean;
}

/** The session lane for hook calls that carry no session id where the vendor allows that. */
export const UNKNOWN_SESSION = 'unknown';

/** Parses a payload of the Claude Code hook family into a hook call. */
export const parseFamilyPayload = (
  vendor: VendorId,
  payload: unknown,
  options: FamilyParseOptions = {},
): Result<HookCall, HookParseErrorCode> => {
  const name = VENDOR_NAMES[vendor];
  if (!isObject(payload))
    return err('invalid-payload', `${name} hook payload is not a JSON object`);
  const moment =
    nonEmpty(payload, 'hook_event_name') ??
    (options.camelCaseEnvelope ? nonEmpty(payload, 'hookEventName') : undefined);
  if (moment === undefined)
    return err('invalid-payload', `${name} hook payload has no hook_event_name`);
  let session =
    nonEmpty(payload, 'session_id') ??
    (options.camelCaseEnvelope ? nonEmpty(payload, 'sessionId') : undefined);
  if (session === undefined) {
    if (!options.sessionOptional)
      return err('invalid-payload', `${name} ${moment} payload has no session_id`);
    session = UNKNOWN_SESSION;
  }
  const toolName = nonEmpty(payload, 'tool_name');
  if (TOOL_MOMENTS.has(moment) && toolName === undefined) {
    return err('invalid-payload', `${name} ${moment} payload has no tool_name`);
  }
  // Only the defined fields, in this order (no intermediate object or entry pairs per hook).
  const call: { -readonly [K in keyof HookCall]?: HookCall[K] } = { vendor, moment, session };
  const turn = nonEmpty(payload, 'turn_id');
  if (turn !== undefined) call.turn = turn;
  const cwd = nonEmpty(payload, 'cwd');
  if (cwd !== undefined) call.cwd = cwd;
  // The call id is the model provider's (`tool_call_id`, Qwen Code) when the payload has one: it is
  // the id the agent's own protocol (ACP `toolCallId`) names the call by, so the session registry
  // merges the two views of one call (sessions/merge.ts). Claude Code's `tool_use_id` is that id.
  if (toolName !== undefined)
    call.tool = {
      name: toolName,
      callId: nonEmpty(payload, 'tool_call_id') ?? nonEmpty(payload, 'tool_use_id'),
      input: payload.tool_input ?? undefined,
    };
  const prompt = str(payload, 'prompt');
  if (prompt !== undefined) call.prompt = prompt;
  const agentId = nonEmpty(payload, 'agent_id');
  if (agentId !== undefined) call.agentId = agentId;
  call.payload = payload;
  return ok(call as HookCall);
};

/** The steering reply of the family: additional context for the named hook moment. */
export const additionalContextReply = (moment: string, text: string): HookReply => ({
  hookSpecificOutput: { hookEventName: moment, additionalContext: text },
});
