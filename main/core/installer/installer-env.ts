/**
 * Everything the installer needs from the outside world, passed in explicitly: the core never
 * reads process.env or global paths itself, so tests run against a temp HOME and data dir.
 */
import type { Surface } from '../../../common/audit';
import type { VendorId } from '../../../common/vendors';
import type { AuditSink } from './audit-sink';

/** The Node runtime the hook launcher execs; `electron` means it must run with ELECTRON_RUN_AS_NODE=1. */
export interface HookRuntime {
  readonly path: string;
  readonly electron: boolean;
}

/** The explicit environment of every installer call. */
export interface InstallerEnv {
  /** The user's home directory. */
  readonly home: string;
  /** The companion's data directory (manifest, backups, the hook launcher, the hook-token file). */
  readonly dataDir: string;
  /** Base URL of the daemon the hooks post to, e.g. http://127.0.0.1:8787. */
  readonly daemonUrl: string;
  /** Relocation variables as the user's shell has them: CLAUDE_CONFIG_DIR, CODEX_HOME, QWEN_HOME, HERMES_HOME. */
  readonly vars?: Readonly<Record<string, string | undefined>>;
  /** The PATH to search for vendor CLIs (empty or absent: no CLI lookup). */
  readonly path?: string;
  /** The platform the configs are written for (path separators, executable suffixes). */
  readonly platform?: NodeJS.Platform;
  /** The Node runtime recorded in the hook launcher; without it the launcher uses `node` from PATH. */
  readonly runtime?: HookRuntime;
  /** The hook shim bundle to install (out/cli/hook.cjs); absent: found from the installer's own location. */
  readonly hookBundle?: string;
  /** This install's `bin/aep-companion.mjs`, which the command-line launcher runs (absent: no launcher offered). */
  readonly cliEntry?: string;
  /** The source checkout (a git clone) `cliEntry` belongs to; absent for a packaged install. */
  readonly cliCheckout?: string;
  /** Windows' %LOCALAPPDATA%, where the command-line launcher goes there. */
  readonly localAppData?: string;
  /** Enterprise policy files to inspect per vendor (e.g. Claude Code's managed-settings.json). */
  readonly managedPolicyFiles?: Partial<Record<VendorId, readonly string[]>>;
  /** Where audit rows go; absent means no audit. */
  readonly audit?: AuditSink;
  /** Who acts, for the audit ('operator' unless told otherwise). */
  readonly actor?: string;
  /** Which surface acts, for the audit. */
  readonly surface?: Surface;
  /** Clock for backup names and manifest times (tests pass a fixed one). */
  readonly now?: () => Date;
  /** Environment of the commands the installer runs (`<cli> --version`, doctor's synthetic hooks); defaults to PATH and HOME. */
  readonly processEnv?: Readonly<Record<string, string | undefined>>;
  /** Timeout of `<cli> --version` during detection, in milliseconds. */
  readonly versionTimeoutMs?: number;
}

/** Reads one relocation variable, treating empty strings as unset. */
export function envVar(env: InstallerEnv, name: string): string | undefined {
  const value = env.vars?.[name];
  return value && value.trim() !== '' ? value : undefined;
}

/** The environment for child processes the installer starts. */
export function childEnv(env: InstallerEnv): Record<string, string> {
  const base = env.processEnv ?? { PATH: env.path, HOME: env.home };
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined) out[k] = v;
  return out;
}

/** What the host (the CLI, the Electron app, `serve`) knows about the user's machine; the daemon adds data dir, URL and audit. */
export type InstallerHost = Omit<
  InstallerEnv,
  'dataDir' | 'daemonUrl' | 'audit' | 'actor' | 'surface' | 'now'
>;
