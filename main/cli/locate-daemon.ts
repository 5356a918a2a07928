/**
 * Finds the data directory, the running daemon's URL and the tokens for the CLI commands. Kept to
 * node:fs/os/path so the hook shim that imports it stays as light as `node -e 0` allows.
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The URL used when neither AEP_COMPANION_URL nor daemon.json names one. */
export const DEFAULT_DAEMON_URL = 'http://127.0.0.1:8787';

/** The per-user data directory the desktop app uses (Electron's userData for `aep-companion`). */
export function defaultDataDir(
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): string {
  if (platform === 'win32')
    return join(env.APPDATA || join(homedir(), 'AppData', 'Roaming'), 'aep-companion');
  if (platform === 'darwin')
    return join(homedir(), 'Library', 'Application Support', 'aep-companion');
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'aep-companion');
}

/** `--data-dir DIR` (or `--data-dir=DIR`), else AEP_COMPANION_DATA_DIR, else the per-user default. */
export function resolveDataDir(
  flag: string | undefined,
  env: NodeJS.ProcessEnv = process.env,
): string {
  return flag || env.AEP_COMPANION_DATA_DIR || defaultDataDir(env);
}

/** The contents of a small text file, trimmed, or '' when it cannot be read. */
export function readTextFile(file: string): string {
  try {
    return readFileSync(file, 'utf8').trim();
  } catch {
    return '';
  }
}

/** The URL recorded in the data directory's daemon.json, or null. */
export function recordedDaemonUrl(dataDir: string): string | null {
  try {
    const info = JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8')) as {
      url?: unknown;
    };
    return typeof info?.url === 'string' && info.url !== '' ? info.url : null;
  } catch {
    return null;
  }
}

/** AEP_COMPANION_URL, else daemon.json's URL, else the default port. */
export function daemonUrl(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.AEP_COMPANION_URL || recordedDaemonUrl(dataDir) || DEFAULT_DAEMON_URL;
}

/** The hook token: AEP_HOOK_TOKEN, else the data directory's `hook-token` file ('' when neither). */
export function hookToken(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.AEP_HOOK_TOKEN || readTextFile(join(dataDir, 'hook-token'));
}

/** The operator token: AEP_OPERATOR_TOKEN, else the data directory's `operator-token` file. */
export function operatorToken(dataDir: string, env: NodeJS.ProcessEnv = process.env): string {
  return env.AEP_OPERATOR_TOKEN || readTextFile(join(dataDir, 'operator-token'));
}

/** Splits argv into positionals and `--name value` / `--name=value` / `--flag` options. */
export function parseArgs(
  args: readonly string[],
  valued: readonly string[],
): { positionals: string[]; options: Map<string, string | true> } {
  const positionals: string[] = [];
  const options = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith('--') && arg.length > 2) {
      const eq = arg.indexOf('=');
      const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq);
      if (eq !== -1) options.set(name, arg.slice(eq + 1));
      else if (valued.includes(name)) options.set(name, args[++i] ?? '');
      else options.set(name, true);
    } else {
      positionals.push(arg);
    }
  }
  return { positionals, options };
}

/**
 * The checks every command with a fixed option set shares: `--help` prints the usage (exit 0); an
 * unknown option or a stray positional argument is refused with the usage (exit 2). Returns the
 * exit code to stop with, or null to go on.
 */
export function helpOrRefusal(
  command: string,
  parsed: { positionals: readonly string[]; options: ReadonlyMap<string, string | true> },
  known: ReadonlySet<string>,
  usage: string,
): number | null {
  if (parsed.options.has('help')) {
    process.stdout.write(usage);
    return 0;
  }
  const unknown = [...parsed.options.keys()].find((k) => k !== 'help' && !known.has(k));
  if (unknown === undefined && parsed.positionals.length === 0) return null;
  const what = unknown !== undefined ? `--${unknown}` : parsed.positionals[0];
  process.stderr.write(`aep-companion ${command}: unexpected argument '${what}'\n${usage}`);
  return 2;
}
