/**
 * The headless host (`aep-companion serve`): the daemon core without Electron. This composition
 * root is where paths are resolved: the data directory, the built console, the version; the core
 * receives them as parameters. It prints the listening line and the console URL, records
 * daemon.json for the other commands, and drains on SIGINT/SIGTERM.
 */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DaemonStartError, startDaemon, type DaemonHandle } from './core/daemon';
import { installLastResort } from './core/last-resort';
import { configureLogging, type LogLevel } from './core/logger';
import { StoreError } from './core/store/store-error';
import type { InstallerHost } from './core/installer/installer-env';
import { installerHostFromProcess } from './installer-host';
import { sqliteBindingForThisProcess } from './sqlite-binding';
import { midTurnOverrideFromEnv } from './core/launched/steer/toggle';

/** Options of the headless host. */
export interface HeadlessOptions {
  readonly dataDir: string;
  /** The port to bind (0: a free one); absent: the stored `server.port` setting (8787 by default). */
  readonly port?: number;
  readonly maxEventsPerSession?: number;
  /** The built console directory; by default out/renderer next to the bundle, when built. */
  readonly consoleDir?: string;
  readonly logLevel?: LogLevel;
  readonly version?: string;
  /** The installer's view of this machine; by default this process's home, PATH and variables. */
  readonly installerHost?: InstallerHost;
  /** Where setting overrides are read (AEP_COMPANION_MID_TURN_STEERING); by default this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** SQLite's native binding for this runtime (`DaemonOptions.nativeBinding`); by default main/sqlite-binding.ts's choice. */
  readonly nativeBinding?: string;
}

/** Where the standard streams go (tests pass their own). */
export interface HeadlessIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const defaultIo: HeadlessIo = {
  out: (line) => process.stdout.write(`${line}\n`),
  err: (line) => process.stderr.write(`${line}\n`),
};

/** The built console next to this module (bundle in out/cli, or sources under main/), if present. */
export function defaultConsoleDir(): string | undefined {
  let here: string;
  try {
    here = dirname(fileURLToPath(import.meta.url));
  } catch {
    return undefined;
  }
  for (const candidate of [
    resolve(here, '../renderer'),
    resolve(here, '../out/renderer'),
    resolve(here, '../../out/renderer'),
  ]) {
    if (existsSync(join(candidate, 'index.html'))) return candidate;
  }
  return undefined;
}

/** Starts the daemon (which records daemon.json); a one-line error and null when it cannot start. */
export async function startHeadless(
  options: HeadlessOptions,
  io: HeadlessIo = defaultIo,
): Promise<DaemonHandle | null> {
  configureLogging({ level: options.logLevel ?? 'warn' });
  const midTurn = midTurnOverrideFromEnv(options.env ?? process.env);
  if (!midTurn.ok) {
    io.err(`aep-companion serve: ${midTurn.error.message}`);
    return null;
  }
  let daemon: DaemonHandle;
  try {
    daemon = await startDaemon({
      settingOverrides: midTurn.value === null ? {} : { 'features.midTurnSteering': midTurn.value },
      dataDir: options.dataDir,
      port: options.port,
      maxEventsPerSession: options.maxEventsPerSession,
      consoleDir: options.consoleDir ?? defaultConsoleDir(),
      version: options.version,
      installerHost: options.installerHost ?? installerHostFromProcess(),
      nativeBinding: options.nativeBinding ?? sqliteBindingForThisProcess(),
    });
  } catch (e) {
    if (e instanceof DaemonStartError || e instanceof StoreError) {
      io.err(`aep-companion serve: ${e.message}`);
      return null;
    }
    throw e;
  }
  // daemon.json is the core's: written (pid, then URL) while it holds the data directory's lock.
  io.out(`AEP Companion listening on ${daemon.url}`);
  io.out(`${daemon.url}/#token=${daemon.tokens.operator}`);
  return daemon;
}

/** Drains the daemon (which removes daemon.json before it frees the data directory's lock). */
export async function stopHeadless(daemon: DaemonHandle): Promise<void> {
  await daemon.close();
}

/** Runs until SIGINT/SIGTERM; resolves with the exit code. */
export async function runHeadless(
  options: HeadlessOptions,
  io: HeadlessIo = defaultIo,
): Promise<number> {
  // A failure no guard caught ends the process loudly instead of leaving a daemon in an unknown state.
  const removeLastResort = installLastResort(process, { write: io.err });
  // The signal handlers go in before the daemon starts: a SIGTERM that arrives right after the
  // ready lines (or during start) must drain, not kill the process with the default action.
  let signalled = false;
  let onStopped: (() => void) | null = null;
  const onSignal = (): void => {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    signalled = true;
    onStopped?.();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const daemon = await startHeadless(options, io);
  if (daemon === null) {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    removeLastResort();
    return 1;
  }
  if (!signalled) await new Promise<void>((resolveSignal) => (onStopped = resolveSignal));
  await stopHeadless(daemon);
  removeLastResort();
  return 0;
}
