/**
 * Codex CLI: command hooks in `hooks.json` next to the config layer (user: `$CODEX_HOME` or
 * `~/.codex`; project: `<project>/.codex`). Codex has no HTTP hooks, so every entry runs the
 * launcher. Trust is per hook and positional, so ours are appended after the user's groups,
 * and any change to our command text makes Codex ask for trust again (`/hooks`).
 * `config.toml` is only read, to warn about hooks switched off or kept in two representations.
 */
import { join } from 'node:path';
import { groupedHooksFormat } from '../../installer/grouped-hooks-edit';
import { hookCommand, isOurCommand } from '../../installer/hook-target';
import { envVar, type InstallerEnv } from '../../installer/installer-env';
import { isObject } from '../../installer/json-document';
import { readTomlQuietly } from '../../installer/policy-files';
import type {
  DesiredHooks,
  InstallTarget,
  VendorInstaller,
  WarningContext,
} from '../../installer/vendor-installer';

// The events Codex has had since hooks shipped; newer builds may reject unknown event keys.
const EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'Stop',
] as const;

const isOurs = (handler: unknown): boolean => isObject(handler) && isOurCommand(handler.command);

/** Seconds, on PermissionRequest with the permission opt-in. */
const HELD_TIMEOUT_S = 120;

function handlerFor(event: string, want: DesiredHooks, env: InstallerEnv): Record<string, unknown> {
  const timeout = event === 'PermissionRequest' && want.permissions ? HELD_TIMEOUT_S : 10;
  return { type: 'command', command: hookCommand('codex', env, want, 'shell'), timeout };
}

/** The Codex home directory, honouring CODEX_HOME. */
export function codexHome(env: InstallerEnv): string {
  return envVar(env, 'CODEX_HOME') ?? join(env.home, '.codex');
}

function hooksDisabled(config: Record<string, unknown> | undefined): boolean {
  const features = config?.features;
  return isObject(features) && (features.hooks === false || features.codex_hooks === false);
}

function hasTomlHooks(config: Record<string, unknown> | undefined): boolean {
  const hooks = config?.hooks;
  return isObject(hooks) && Object.keys(hooks).some((k) => k !== 'state');
}

async function configWarnings(context: WarningContext): Promise<string[]> {
  const out: string[] = [];
  const configToml = join(context.path, '..', 'config.toml');
  const config = await readTomlQuietly(configToml);
  if (config?.error)
    out.push(
      `${configToml} does not parse (${config.error}); Codex may not start until it is fixed (the installer does not change it).`,
    );
  if (hooksDisabled(config?.value))
    out.push(
      `${configToml} turns hooks off ([features] hooks = false): Codex will not run these hooks until it is removed.`,
    );
  if (context.want && hasTomlHooks(config?.value)) {
    out.push(
      `${configToml} also defines hooks for this layer: Codex loads both but warns to prefer a single representation.`,
    );
  }
  for (const file of context.env.managedPolicyFiles?.codex ?? []) {
    const managed = await readTomlQuietly(file);
    if (hooksDisabled(managed?.value))
      out.push(
        `${file} (managed by your administrator) turns hooks off: these hooks will not run.`,
      );
  }
  return out;
}

/** The Codex installer. */
export const codex: VendorInstaller = {
  vendor: 'codex',
  heldTimeoutS: HELD_TIMEOUT_S,
  scopes: ['user', 'project'],
  transports: ['command'],
  retrust: true,
  cliNames: ['codex'],
  configPath(target: InstallTarget, env: InstallerEnv): string {
    return target.scope === 'project' && target.project
      ? join(target.project, '.codex', 'hooks.json')
      : join(codexHome(env), 'hooks.json');
  },
  ...groupedHooksFormat({ events: EVENTS, handlerFor, isOurs, commandEnv: false }),
  needsLauncher: () => true,
  async warnings(context) {
    const out = await configWarnings(context);
    if (context.want) {
      out.push(
        'Codex runs new or changed hooks only after you trust them: open Codex and run `/hooks` to review and trust the AEP Companion hooks (until then they are silently skipped).',
      );
      if (context.target.scope === 'project')
        out.push('Codex loads project hooks only for a trusted project.');
    }
    return out;
  },
};
