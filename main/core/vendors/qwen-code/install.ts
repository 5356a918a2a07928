/**
 * Qwen Code: hooks in `settings.json` (user: `$QWEN_HOME` or `~/.qwen`; project:
 * `<project>/.qwen/settings.json`, usually committed: it never holds a token). The launcher by
 * default (it reads the token file and daemon.json itself, so hooks work from a clean shell and
 * survive a port change); the opt-ins go in the entry's `env` field. Native HTTP hooks on request
 * (loopback is allowed by its SSRF guard), the token by reference as `${AEP_HOOK_TOKEN}`. Every entry
 * carries `name: "aep-companion"`, Qwen's own field, as a second ownership marker. Timeouts:
 * seconds for HTTP, milliseconds for commands.
 */
import { join } from 'node:path';
import { groupedHooksFormat } from '../../installer/grouped-hooks-edit';
import {
  hookCommand,
  hookUrl,
  isOurCommand,
  isOurUrl,
  optInVars,
  quoteWord,
  TOKEN_VAR,
} from '../../installer/hook-target';
import { envVar, type InstallerEnv } from '../../installer/installer-env';
import { isObject, parseJsonConfig } from '../../installer/json-document';
import { urlAllowed } from '../../installer/policy-files';
import type { DesiredHooks, InstallTarget, VendorInstaller } from '../../installer/vendor-installer';

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

/** Qwen's `name` field value on our entries. */
export const QWEN_ENTRY_NAME = 'aep-companion';

const isOurs = (handler: unknown): boolean =>
  isObject(handler) &&
  (handler.name === QWEN_ENTRY_NAME ||
    isOurCommand(handler.command) ||
    isOurUrl(handler.url, 'qwen-code'));

/** Seconds, on PermissionRequest with the permission opt-in. */
const HELD_TIMEOUT_S = 120;

function handlerFor(event: string, want: DesiredHooks, env: InstallerEnv): Record<string, unknown> {
  const seconds = event === 'PermissionRequest' && want.permissions ? HELD_TIMEOUT_S : 10;
  if (want.transport === 'command') {
    const vars = optInVars(want);
    return {
      type: 'command',
      name: QWEN_ENTRY_NAME,
      command: hookCommand('qwen-code', env, want, 'bare'),
      ...(Object.keys(vars).length > 0 ? { env: vars } : {}),
      timeout: seconds * 1000,
    };
  }
  return {
    type: 'http',
    name: QWEN_ENTRY_NAME,
    url: hookUrl('qwen-code', env, want),
    headers: { Authorization: `Bearer \${${TOKEN_VAR}}` },
    allowedEnvVars: [TOKEN_VAR],
    timeout: seconds,
  };
}

/** The Qwen Code user directory, honouring QWEN_HOME. */
export function qwenHome(env: InstallerEnv): string {
  return envVar(env, 'QWEN_HOME') ?? join(env.home, '.qwen');
}

/** The Qwen Code installer. */
export const qwenCode: VendorInstaller = {
  vendor: 'qwen-code',
  heldTimeoutS: HELD_TIMEOUT_S,
  scopes: ['user', 'project'],
  transports: ['command', 'http'],
  retrust: false,
  cliNames: ['qwen'],
  configPath(target: InstallTarget, env: InstallerEnv): string {
    return target.scope === 'project' && target.project
      ? join(target.project, '.qwen', 'settings.json')
      : join(qwenHome(env), 'settings.json');
  },
  ...groupedHooksFormat({ events: EVENTS, handlerFor, isOurs, commandEnv: true }),
  needsLauncher: (want) => want.transport === 'command',
  async warnings(context) {
    const out: string[] = [];
    const settings = context.before ? parseJsonConfig(context.path, context.before) : undefined;
    const value = settings?.ok ? settings.value : undefined;
    if (isObject(value) && value.disableAllHooks === true)
      out.push(
        `${context.path} sets disableAllHooks: Qwen Code runs no hooks until it is removed.`,
      );
    const security = isObject(value) ? value.security : undefined;
    if (
      context.want?.transport === 'http' &&
      isObject(security) &&
      Array.isArray(security.allowedHttpHookUrls)
    ) {
      const url = hookUrl('qwen-code', context.env, context.want);
      if (!urlAllowed(url, security.allowedHttpHookUrls))
        out.push(
          `${context.path} restricts HTTP hook URLs (security.allowedHttpHookUrls) and ${url} is not allowed: add it, or install with --transport command.`,
        );
    }
    if (!context.want) return out;
    if (context.want.transport === 'http') {
      out.push(
        `Qwen Code's HTTP hooks send the hook token from the ${TOKEN_VAR} environment variable (the settings name it, they never hold it): every shell that starts Qwen Code needs it exported, e.g. add \`export ${TOKEN_VAR}="$(cat ${quoteWord(join(context.env.dataDir, 'hook-token'))})"\` to your shell profile. The default launcher transport needs nothing: it reads the token file itself.`,
      );
    }
    if (context.target.scope === 'project')
      out.push('Qwen Code runs project hooks only in a trusted folder.');
    return out;
  },
};
