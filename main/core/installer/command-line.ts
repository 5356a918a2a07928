/**
 * The `aep-companion` command on the user's PATH: a small launcher that runs this install's
 * `bin/aep-companion.mjs` with the runtime that runs the app. POSIX (Linux, macOS): a shell
 * script `~/.local/bin/aep-companion`; Windows: `aep-companion.cmd` in the per-user
 * `%LOCALAPPDATA%\Microsoft\WindowsApps`, which Windows puts on PATH. The launcher carries a
 * marker line: only a file with it is replaced or removed, never someone else's `aep-companion`.
 * Every path arrives as a parameter.
 */
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { dirname, posix, win32 } from 'node:path';
import type { CommandLineState } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import { ensureDir, writeFileAtomic } from './atomic-write';
import type { AuditSink } from './audit-sink';
import type { HookRuntime, InstallerEnv } from './installer-env';

/** The line that marks a launcher as the companion's own. */
export const COMMAND_LINE_MARK = 'AEP Companion command-line launcher';

/** Where the launcher goes and what it runs. */
export interface CommandLineTarget {
  readonly home: string;
  readonly platform: NodeJS.Platform;
  /** The user's PATH, to tell whether the launcher's folder is on it. */
  readonly path: string;
  /** This install's `bin/aep-companion.mjs`. */
  readonly entry: string;
  /** The runtime that runs it (`electron`: with ELECTRON_RUN_AS_NODE=1); absent: `node` from PATH. */
  readonly runtime?: HookRuntime;
  /** The source checkout this install runs from (absent: a packaged install). */
  readonly checkout?: string;
  /** Windows' %LOCALAPPDATA% (default: `<home>\AppData\Local`). */
  readonly localAppData?: string;
  readonly audit?: AuditSink;
  readonly surface?: 'console' | 'cli' | 'installer';
}

/** The launcher's target in an installer environment (null: the host knows no entry to run). */
export function commandLineTarget(env: InstallerEnv): CommandLineTarget | null {
  if (!env.cliEntry) return null;
  const surface = env.surface === 'console' || env.surface === 'cli' ? env.surface : 'installer';
  return {
    home: env.home,
    platform: env.platform ?? 'linux',
    path: env.path ?? '',
    entry: env.cliEntry,
    runtime: env.runtime,
    ...(env.cliCheckout ? { checkout: env.cliCheckout } : {}),
    localAppData: env.localAppData,
    audit: env.audit,
    surface,
  };
}

const isWindows = (t: CommandLineTarget): boolean => t.platform === 'win32';

/** The launcher's path. */
export function commandLinePath(t: CommandLineTarget): string {
  if (isWindows(t)) {
    const local = t.localAppData ?? win32.join(t.home, 'AppData', 'Local');
    return win32.join(local, 'Microsoft', 'WindowsApps', 'aep-companion.cmd');
  }
  return posix.join(t.home, '.local', 'bin', 'aep-companion');
}

const shQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;
const cmdQuote = (s: string): string => `"${s.replace(/"/g, '""')}"`;

const shWord = (s: string): string => (/^[A-Za-z0-9_/.:=@%+,-]+$/.test(s) ? s : shQuote(s));

/** The runtime and entry, as the launcher runs them (quoted for its shell). */
function runLine(t: CommandLineTarget, quote: (s: string) => string): string {
  const runtime = t.runtime?.path;
  return `${runtime ? quote(runtime) : 'node'} ${quote(t.entry)}`;
}

/** The launcher's text. */
export function commandLineScript(t: CommandLineTarget): string {
  const electron = t.runtime?.electron === true;
  if (isWindows(t)) {
    return [
      '@echo off',
      `rem ${COMMAND_LINE_MARK} (the setup wizard wrote it; removing the command line deletes it).`,
      ...(electron ? ['set ELECTRON_RUN_AS_NODE=1'] : []),
      `${runLine(t, cmdQuote)} %*`,
      '',
    ].join('\r\n');
  }
  return [
    '#!/bin/sh',
    `# ${COMMAND_LINE_MARK} (the setup wizard wrote it; removing the command line deletes it).`,
    `exec ${electron ? 'env ELECTRON_RUN_AS_NODE=1 ' : ''}${runLine(t, shQuote)} "$@"`,
    '',
  ].join('\n');
}

/** What a terminal types to run this install's command line without the launcher (Windows: in cmd). */
export function directCommand(t: CommandLineTarget): string {
  const electron = t.runtime?.electron === true;
  if (isWindows(t)) return `${electron ? 'set ELECTRON_RUN_AS_NODE=1&& ' : ''}${runLine(t, cmdQuote)}`;
  return `${electron ? 'ELECTRON_RUN_AS_NODE=1 ' : ''}${runLine(t, shWord)}`;
}

function onPath(t: CommandLineTarget, dir: string): boolean {
  const sep = isWindows(t) ? ';' : ':';
  const norm = (p: string): string => (isWindows(t) ? p.replace(/[\\/]+$/, '').toLowerCase() : p.replace(/\/+$/, ''));
  return t.path.split(sep).some((p) => p !== '' && norm(p) === norm(dir));
}

/** What is at the launcher's path now. */
export function commandLineState(t: CommandLineTarget): CommandLineState {
  const path = commandLinePath(t);
  const dir = isWindows(t) ? win32.dirname(path) : dirname(path);
  let text: string | null = null;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    text = null;
  }
  const installed = text === null ? 'absent' : text.includes(COMMAND_LINE_MARK) ? 'ours' : 'other';
  return {
    path,
    entry: t.entry,
    installed,
    current: installed === 'ours' && text === commandLineScript(t),
    onPath: onPath(t, dir),
    direct: directCommand(t),
    checkout: t.checkout ?? null,
  };
}

function audit(t: CommandLineTarget, action: string, outcome: 'ok' | 'unchanged' | 'error', detail: Record<string, unknown>): void {
  t.audit?.append({ actor: 'operator', surface: t.surface ?? 'installer', action, session: null, commandId: null, outcome, detail });
}

/** Writes (or refreshes) the launcher; refuses to replace an `aep-companion` that is not ours. */
export async function installCommandLine(t: CommandLineTarget): Promise<Result<CommandLineState, 'not-ours' | 'write-failed'>> {
  const before = commandLineState(t);
  if (before.installed === 'other') {
    audit(t, 'command-line.install', 'error', { path: before.path, reason: 'not-ours' });
    return err('not-ours', `${before.path} exists and is not the companion's launcher; it was left as it is`);
  }
  if (before.current) {
    audit(t, 'command-line.install', 'unchanged', { path: before.path, entry: t.entry });
    return ok(before);
  }
  try {
    await ensureDir(dirname(before.path));
    await writeFileAtomic(before.path, commandLineScript(t), 0o755);
  } catch (e) {
    audit(t, 'command-line.install', 'error', { path: before.path, reason: (e as Error).message });
    return err('write-failed', `could not write ${before.path}: ${(e as Error).message}`);
  }
  audit(t, 'command-line.install', 'ok', { path: before.path, entry: t.entry });
  return ok(commandLineState(t));
}

/** Removes the launcher when it is ours (absent: nothing to do); another `aep-companion` stays. */
export async function removeCommandLine(t: CommandLineTarget): Promise<Result<CommandLineState, 'not-ours' | 'write-failed'>> {
  const before = commandLineState(t);
  if (before.installed === 'other') {
    audit(t, 'command-line.uninstall', 'error', { path: before.path, reason: 'not-ours' });
    return err('not-ours', `${before.path} is not the companion's launcher; it was left as it is`);
  }
  if (before.installed === 'absent') {
    audit(t, 'command-line.uninstall', 'unchanged', { path: before.path });
    return ok(before);
  }
  try {
    await rm(before.path, { force: true });
  } catch (e) {
    audit(t, 'command-line.uninstall', 'error', { path: before.path, reason: (e as Error).message });
    return err('write-failed', `could not remove ${before.path}: ${(e as Error).message}`);
  }
  audit(t, 'command-line.uninstall', 'ok', { path: before.path });
  return ok(commandLineState(t));
}
