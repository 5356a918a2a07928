/**
 * Cline CLI: one hook script per event name in a hooks folder (user: `~/.cline/hooks/`; project:
 * `<project>/.clinerules/hooks/`), the layout the 3.0.65 CLI really loads (`--hooks-dir` and
 * `CLINE_HOOKS_DIR` are ignored). Every script is ours whole: a POSIX script that execs the
 * fail-open launcher with the opt-ins and a short deadline (Cline waits only for the tool hooks).
 * `TaskStart` is the install's config file; the other events are its extra files (written, backed
 * up, recorded and removed the same way). A script of the user's under one of these names is
 * backed up and restored at uninstall. Doctor runs a synthetic hook through an installed script and
 * checks the hub discovery file (`~/.cline/data/locks/hub/production.json`, owner-only).
 */
import { stat } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import type { DoctorFinding } from '../../../../common/api';
import { clineHome, clineHubDiscoveryPath } from '../../../../common/cline';
import { ok } from '../../../../common/result';
import { hookCommand, isOurCommand, optInVars, quoteWord } from '../../installer/hook-target';
import type { InstallerEnv } from '../../installer/installer-env';
import type { DesiredHooks, InstallTarget, OurEntry, VendorInstaller } from '../../installer/vendor-installer';

/** The script names the CLI loads, `TaskStart` first (the install's config file); each gets `hookName` as noted. */
export const CLINE_SCRIPTS: readonly string[] = [
  'TaskStart', // agent_start
  'TaskResume', // agent_resume
  'TaskCancel', // agent_abort (never fired by 3.0.65; installed for later versions)
  'TaskComplete', // agent_end
  'TaskError', // agent_error
  'PreToolUse', // tool_call
  'PostToolUse', // tool_result
  'UserPromptSubmit', // prompt_submit
  'SessionShutdown', // session_shutdown
];

/** The tool hooks: the only ones the agent waits for. */
const BLOCKING = new Set(['PreToolUse', 'PostToolUse']);

/** The launcher's deadline per script, in ms: short everywhere, since a slow tool hook delays the tool. */
export const clineHookTimeoutMs = (script: string): number => (BLOCKING.has(script) ? 3000 : 2000);

/** The line that marks a script as ours. */
const MARK = '# AEP Companion hook for Cline';

/** The hooks folder of an install target. */
export function clineHooksDir(target: InstallTarget, env: InstallerEnv): string {
  return target.scope === 'project' && target.project
    ? join(target.project, '.clinerules', 'hooks')
    : join(clineHome(env.home), 'hooks');
}

/** The script text for one event. */
export function clineScript(script: string, want: DesiredHooks, env: InstallerEnv): string {
  const vars = { AEP_HOOK_TIMEOUT_MS: String(clineHookTimeoutMs(script)), ...optInVars(want) };
  const assignments = Object.entries(vars)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return [
    '#!/bin/sh',
    `${MARK} (${script}), written by the installer (reinstall to refresh; uninstall removes it).`,
    '# Fail-open: the launcher prints an empty reply and exits 0 whatever happens.',
    `${assignments} exec ${hookCommand('cline', env, want, 'bare')}`,
    '',
  ].join('\n');
}

const isOurScript = (text: string | null): boolean =>
  text !== null && text.includes(MARK) && isOurCommand(text);

/** The command line of a script of ours (its `exec` line, as sh would run it). */
const commandOf = (text: string): string | undefined =>
  text
    .split('\n')
    .find((line) => line.includes(' exec '))
    ?.replace(' exec ', ' ');

/** The doctor check of the hub discovery file: present, owner-only, naming a WebSocket URL. */
export async function clineHubCheck(env: InstallerEnv): Promise<DoctorFinding> {
  const path = clineHubDiscoveryPath(env.home);
  const base = { vendor: 'cline' as const, check: 'cline-hub' };
  try {
    const info = await stat(path);
    if ((info.mode & 0o077) !== 0)
      return {
        ...base,
        ok: false,
        message: `${path} is readable by other users (mode ${(info.mode & 0o777).toString(8)}): the hub tap does not use it`,
        remedy: `Run \`chmod 600 ${quoteWord(path)}\`, or \`cline hub stop\` and start Cline again.`,
      };
    return {
      ...base,
      ok: true,
      message: `the Cline hub discovery file is in ${path}: steering goes through the hub`,
      remedy: null,
    };
  } catch {
    return {
      ...base,
      ok: false,
      message: `no Cline hub is running (${path} is absent): sessions are observed through hooks only, without steering`,
      remedy:
        'Start Cline without --data-dir (or run `cline hub start`) to steer its sessions from the companion.',
    };
  }
}

/** The Cline installer. */
export const cline: VendorInstaller = {
  vendor: 'cline',
  scopes: ['user', 'project'],
  transports: ['command'],
  retrust: false,
  cliNames: ['cline'],
  configPath(target, env) {
    return join(clineHooksDir(target, env), CLINE_SCRIPTS[0]);
  },
  extraFiles(target, env) {
    const dir = clineHooksDir(target, env);
    return CLINE_SCRIPTS.slice(1).map((script) => join(dir, script));
  },
  fileMode: 0o755,
  edit(path, before, want, env) {
    if (want === null) return ok(isOurScript(before) ? null : before);
    return ok(clineScript(basename(path), want, env));
  },
  ourEntries(path, text) {
    if (!isOurScript(text)) return ok([]);
    return ok([
      { event: basename(path), entry: { command: commandOf(text as string) ?? '', script: path } },
    ]);
  },
  isEmptyDocument: (text) => text.trim() === '',
  probe(found: OurEntry) {
    const script = found.entry.script;
    if (typeof script !== 'string') return null;
    // Exactly what the CLI does: run the script itself with the payload on stdin.
    return {
      kind: 'command',
      event: found.event,
      command: quoteWord(script),
      env: {},
      runner: 'shell',
    };
  },
  needsLauncher: () => true,
  async doctorChecks(_install, env) {
    return [await clineHubCheck(env)];
  },
  async warnings(context) {
    const out: string[] = [];
    if (!context.want) return out;
    out.push(
      `Cline loads one script per event from ${dirname(context.path)}: ${CLINE_SCRIPTS.join(', ')}. A script of yours under one of these names is replaced, backed up, and restored at uninstall.`,
    );
    out.push(
      'Cline runs with --data-dir locally, without the hub: such runs are observed, but cannot be steered.',
    );
    if (context.want.instruct)
      out.push(
        'Cline sessions are steered through the Cline hub (session.send_input), not through hook replies: the companion connects to the hub while an opted-in session is live.',
      );
    return out;
  },
};
