/**
 * Builds a vendor's `hooks` configuration object (the value of the `hooks` key in Claude Code's
 * settings file, Codex's hooks.json and Qwen Code's settings.json) from one handler choice per
 * moment, in each vendor's real format (timeouts: seconds, except Qwen command hooks in ms).
 */
import type { CliVendor } from './vendor-clis';

/** A handler as the harness describes it, before vendor formatting. */
export type HookHandlerSpec =
  | {
      readonly type: 'http';
      readonly url: string;
      /** Header values may name environment variables as `${NAME}` when NAME is in allowedEnvVars. */
      readonly headers?: Readonly<Record<string, string>>;
      readonly allowedEnvVars?: readonly string[];
    }
  | { readonly type: 'command'; readonly command: string };

/** Every hook moment the harness registers per vendor (what the pinned versions document). */
export const HOOK_MOMENTS: Readonly<Record<CliVendor, readonly string[]>> = {
  'claude-code': [
    'SessionStart',
    'SessionEnd',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'PostToolBatch',
    'Stop',
    'StopFailure',
    'PermissionRequest',
    'Notification',
    'SubagentStart',
    'SubagentStop',
    'PreCompact',
    'PostCompact',
  ],
  codex: [
    'SessionStart',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'Stop',
    'PermissionRequest',
    'SubagentStart',
    'SubagentStop',
    'PreCompact',
    'PostCompact',
  ],
  'qwen-code': [
    'SessionStart',
    'SessionEnd',
    'UserPromptSubmit',
    'PreToolUse',
    'PostToolUse',
    'PostToolUseFailure',
    'Stop',
    'StopFailure',
    'PermissionRequest',
    'Notification',
    'SubagentStart',
    'SubagentStop',
    'PreCompact',
    'PostCompact',
  ],
};

/** Whether `vendor` runs `type: "http"` handlers at `moment` (Codex never; Claude Code not on SessionStart). */
export function supportsHttpHook(vendor: CliVendor, moment: string): boolean {
  if (vendor === 'codex') return false;
  return !(vendor === 'claude-code' && moment === 'SessionStart');
}

/** Timeout given to every harness hook, in seconds. */
export const HOOK_TIMEOUT_S = 30;

/** The vendor-format `hooks` object: `handlerFor` picks the handler of each moment (null: none). */
export function vendorHooks(
  vendor: CliVendor,
  handlerFor: (moment: string) => HookHandlerSpec | null,
  moments: readonly string[] = HOOK_MOMENTS[vendor],
): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const moment of moments) {
    const spec = handlerFor(moment);
    if (!spec) continue;
    if (spec.type === 'http' && !supportsHttpHook(vendor, moment)) {
      throw new Error(`${vendor} does not run http hooks at ${moment}: use a command hook`);
    }
    hooks[moment] = [{ hooks: [formatHandler(vendor, spec)] }];
  }
  return hooks;
}

function formatHandler(vendor: CliVendor, spec: HookHandlerSpec): Record<string, unknown> {
  if (spec.type === 'http') {
    return {
      type: 'http',
      url: spec.url,
      ...(spec.headers ? { headers: spec.headers } : {}),
      ...(spec.allowedEnvVars ? { allowedEnvVars: spec.allowedEnvVars } : {}),
      timeout: HOOK_TIMEOUT_S,
    };
  }
  // Qwen Code reads command-hook timeouts in milliseconds; the others in seconds.
  const timeout = vendor === 'qwen-code' ? HOOK_TIMEOUT_S * 1000 : HOOK_TIMEOUT_S;
  return { type: 'command', command: spec.command, timeout };
}

/** Quotes one argument for the POSIX shell the vendors run command hooks through. */
export function shellQuote(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}
