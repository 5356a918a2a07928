/**
 * The VS Code agent: a hook file wholly owned by the companion, in VS Code's flat format
 * (`{"hooks": {"<Event>": [entry, …]}}`, no matcher groups): `<project>/.github/hooks/aep-companion.json`
 * for a project (the attribution-correct place), `~/.copilot/hooks/aep-companion.json` for the
 * user. Install writes it, uninstall deletes it; nothing of the user's is merged or touched.
 */
import { join } from 'node:path';
import { err, ok } from '../../../../common/result';
import { hookCommand, isOurCommand, optInVars } from '../../installer/hook-target';
import type { InstallerEnv } from '../../installer/installer-env';
import { freshJson, isObject, jsonEqual, parseJsonConfig } from '../../installer/json-document';
import { claudeCode, claudeConfigDir } from '../claude-code/install';
import { readConfigText } from '../../installer/config-file';
import type { DesiredHooks, InstallTarget, OurEntry, VendorInstaller } from '../../installer/vendor-installer';

const EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PostToolUse',
  'PreCompact',
  'SubagentStart',
  'SubagentStop',
  'Stop',
] as const;

/** The name of the file we own in VS Code's hook folders. */
export const VSCODE_HOOK_FILE = 'aep-companion.json';

/** Seconds, on the gated PreToolUse: room for the daemon's hold (`permissions.holdMs`, 50 s by default). */
const HELD_TIMEOUT_S = 60;

function entryFor(event: string, want: DesiredHooks, env: InstallerEnv): Record<string, unknown> {
  // VS Code's default is 30 s; the gated PreToolUse (a held permission decision) gets 60 s.
  const timeout = event === 'PreToolUse' && want.permissions ? HELD_TIMEOUT_S : 10;
  const vars = optInVars(want);
  return {
    type: 'command',
    command: hookCommand('vscode', env, want, 'bare'),
    ...(Object.keys(vars).length > 0 ? { env: vars } : {}),
    timeout,
  };
}

function document(want: DesiredHooks, env: InstallerEnv): Record<string, unknown> {
  const hooks: Record<string, unknown> = {};
  for (const event of EVENTS) hooks[event] = [entryFor(event, want, env)];
  return { hooks };
}

/** The VS Code agent installer. */
export const vscode: VendorInstaller = {
  vendor: 'vscode',
  heldTimeoutS: HELD_TIMEOUT_S,
  scopes: ['user', 'project'],
  transports: ['command'],
  retrust: false,
  cliNames: ['code', 'code-insiders'],
  configPath(target: InstallTarget, env: InstallerEnv): string {
    return target.scope === 'project' && target.project
      ? join(target.project, '.github', 'hooks', VSCODE_HOOK_FILE)
      : join(env.home, '.copilot', 'hooks', VSCODE_HOOK_FILE);
  },
  edit(path, before, want, env) {
    if (before !== null && before.trim() !== '') {
      const parsed = parseJsonConfig(path, before);
      if (!parsed.ok) return parsed;
      if (!isObject(parsed.value))
        return err(
          'unexpected-shape',
          `${path}: the top level is not a JSON object; it was not changed`,
        );
      if (want && jsonEqual(parsed.value, document(want, env))) return ok(before);
    }
    return ok(want ? freshJson(document(want, env)) : null);
  },
  ourEntries(path, text) {
    if (text === null || text.trim() === '') return ok([]);
    const parsed = parseJsonConfig(path, text);
    if (!parsed.ok) return parsed;
    const hooks = isObject(parsed.value) ? parsed.value.hooks : undefined;
    if (!isObject(hooks)) return ok([]);
    const found: OurEntry[] = [];
    for (const [event, list] of Object.entries(hooks)) {
      if (!Array.isArray(list)) continue;
      for (const entry of list)
        if (isObject(entry) && isOurCommand(entry.command)) found.push({ event, entry });
    }
    return ok(found);
  },
  isEmptyDocument: () => true,
  probe(found: OurEntry) {
    const e = found.entry;
    if (typeof e.command !== 'string') return null;
    return {
      kind: 'command',
      event: found.event,
      command: e.command,
      env: (isObject(e.env) ? e.env : {}) as Record<string, string>,
      runner: 'shell',
    };
  },
  needsLauncher: () => true,
  async warnings(context) {
    const out: string[] = [];
    if (!context.want) return out;
    // Attribution: Claude Code hooks in ~/.claude/settings.json also fire inside VS Code.
    const claudeUser = join(claudeConfigDir(context.env), 'settings.json');
    const claudeText = await readConfigText(claudeUser);
    const claudeOurs = claudeText.ok
      ? claudeCode.ourEntries(claudeUser, claudeText.value)
      : undefined;
    if (claudeOurs?.ok && claudeOurs.value.length > 0) {
      out.push(
        `Claude Code hooks of ours are installed in ${claudeUser}, which VS Code also reads: VS Code sessions will then be reported twice, once attributed to Claude Code. Set "chat.hookFilesLocations" to turn "~/.claude/settings.json" off in VS Code, or uninstall the Claude Code hooks.`,
      );
    } else {
      out.push(
        'VS Code also reads ~/.claude/settings.json and .claude/settings*.json: Claude Code hooks installed there later would fire inside VS Code too, attributed to Claude Code.',
      );
    }
    if (context.target.scope === 'user') {
      out.push(
        'VS Code lists ~/.copilot/hooks as a user hook folder, but it may not be in "chat.hookFilesLocations" by default: if the agent does not pick the hooks up, add "~/.copilot/hooks": true there, or install for a project (.github/hooks is always read).',
      );
    }
    out.push(
      'VS Code runs hooks only with "chat.useHooks" on (your organisation may turn it off by policy) and only in a trusted workspace.',
    );
    return out;
  },
};
