/**
 * Claude Code: hooks in `settings.json` (user: `$CLAUDE_CONFIG_DIR` or `~/.claude`; project:
 * `<project>/.claude/settings.local.json`, the personal file kept out of git, since our entries
 * carry this machine's paths). The default transport is the launcher for every moment: it reads
 * the hook token file and daemon.json itself, so hooks work from a clean shell and survive a port
 * change (docs/ARCHITECTURE.md, "Hook transport per vendor"). `--transport http` posts directly
 * (except `SessionStart`, which only runs command hooks), the token by reference as `$AEP_HOOK_TOKEN`.
 */
import { join } from 'node:path';
import { groupedHooksFormat } from '../../installer/grouped-hooks-edit';
import { hookCommand, hookUrl, isOurCommand, isOurUrl, quoteWord, TOKEN_VAR } from '../../installer/hook-target';
import { envVar, type InstallerEnv } from '../../installer/installer-env';
import { isObject } from '../../installer/json-document';
import { readJsonQuietly, urlAllowed } from '../../installer/policy-files';
import type {
  DesiredHooks,
  InstallTarget,
  VendorInstaller,
  WarningContext,
} from '../../installer/vendor-installer';

// Long-standing events only: an event name an older Claude Code does not know can make it
// reject the whole settings file, which would also switch off the user's own settings.
const EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PostToolUseFailure',
  'PermissionRequest',
  'Notification',
  'Stop',
  'SubagentStart',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
] as const;

/** Seconds, on PermissionRequest with the permission opt-in. */
const HELD_TIMEOUT_S = 120;

/** Seconds: short everywhere; long on held moments only when the permission loop may hold them. */
function timeoutFor(event: string, want: DesiredHooks): number {
  if (event === 'PermissionRequest') return want.permissions ? HELD_TIMEOUT_S : 10;
  if (event === 'SessionEnd') return 5;
  return 10;
}

const isOurs = (handler: unknown): boolean =>
  isObject(handler) && (isOurCommand(handler.command) || isOurUrl(handler.url, 'claude-code'));

function handlerFor(event: string, want: DesiredHooks, env: InstallerEnv): Record<string, unknown> {
  const timeout = timeoutFor(event, want);
  if (want.transport === 'command' || event === 'SessionStart') {
    return { type: 'command', command: hookCommand('claude-code', env, want, 'shell'), timeout };
  }
  return {
    type: 'http',
    url: hookUrl('claude-code', env, want),
    headers: { Authorization: `Bearer $${TOKEN_VAR}` },
    allowedEnvVars: [TOKEN_VAR],
    timeout,
  };
}

/** The Claude Code user config directory, honouring CLAUDE_CONFIG_DIR. */
export function claudeConfigDir(env: InstallerEnv): string {
  return envVar(env, 'CLAUDE_CONFIG_DIR') ?? join(env.home, '.claude');
}

async function policyWarnings(context: WarningContext): Promise<string[]> {
  const out: string[] = [];
  const files = [
    ...(context.env.managedPolicyFiles?.['claude-code'] ?? []),
    join(claudeConfigDir(context.env), 'settings.json'),
  ];
  for (const file of files) {
    const settings = await readJsonQuietly(file);
    if (!isObject(settings)) continue;
    if (settings.allowManagedHooksOnly === true) {
      out.push(
        `${file} sets allowManagedHooksOnly: Claude Code ignores hooks from user and project settings, so these hooks will not run; ask your administrator to add them to the managed settings.`,
      );
    }
    if (settings.disableAllHooks === true)
      out.push(
        `${file} sets disableAllHooks: Claude Code runs no hooks at all until it is removed.`,
      );
    if (context.want?.transport === 'http' && Array.isArray(settings.allowedHttpHookUrls)) {
      const url = hookUrl('claude-code', context.env, context.want);
      if (!urlAllowed(url, settings.allowedHttpHookUrls)) {
        out.push(
          `${file} restricts HTTP hook URLs (allowedHttpHookUrls) and ${url} is not allowed: add it, or install with --transport command.`,
        );
      }
    }
    if (
      context.want?.transport === 'http' &&
      Array.isArray(settings.httpHookAllowedEnvVars) &&
      !settings.httpHookAllowedEnvVars.includes(TOKEN_VAR)
    ) {
      out.push(
        `${file} restricts header variables (httpHookAllowedEnvVars) without ${TOKEN_VAR}: the hook token cannot be sent; add it, or install with --transport command.`,
      );
    }
  }
  return out;
}

/** The Claude Code installer. */
export const claudeCode: VendorInstaller = {
  vendor: 'claude-code',
  heldTimeoutS: HELD_TIMEOUT_S,
  scopes: ['user', 'project'],
  transports: ['command', 'http'],
  retrust: false,
  cliNames: ['claude'],
  configPath(target: InstallTarget, env: InstallerEnv): string {
    return target.scope === 'project' && target.project
      ? join(target.project, '.claude', 'settings.local.json')
      : join(claudeConfigDir(env), 'settings.json');
  },
  ...groupedHooksFormat({ events: EVENTS, handlerFor, isOurs, commandEnv: false }),
  needsLauncher: () => true,
  async warnings(context) {
    const out = await policyWarnings(context);
    if (!context.want) return out;
    if (context.want.transport === 'http') {
      out.push(
        `Claude Code's HTTP hooks send the hook token from the ${TOKEN_VAR} environment variable (the settings name it, they never hold it): every shell that starts Claude Code needs it exported, e.g. add \`export ${TOKEN_VAR}="$(cat ${quoteWord(join(context.env.dataDir, 'hook-token'))})"\` to your shell profile. The default launcher transport needs nothing: it reads the token file itself.`,
      );
    }
    out.push(
      'The VS Code agent also reads ~/.claude/settings.json and .claude/settings*.json: these hooks will also fire inside VS Code and be attributed to Claude Code. Install the VS Code agent separately and turn the Claude files off in VS Code\'s "chat.hookFilesLocations" to keep attribution right.',
      'Claude Code holds settings hooks back in a folder until its workspace-trust dialog is accepted.',
    );
    return out;
  },
};
