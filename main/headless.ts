/**
 * The headless host (`aep-companion serve`): the daemon core without Electron. This composition
 * root is where paths are resolved: the data directory, the built console, the version; the core
 * receives them as parameters. It prints the listening line and the console URL, records
 * daemon.json for the other commands, and drains on SIGINT/SIGTERM.
 */
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DaemonStartError, startDaemon, type DaemonHandle } from './core/daemon';
import { configureLogging, type LogLevel } from './core/logger';
import { StoreError } from './core/store/store-error';
import type { InstallerHost } from './core/installer/installer-env';
import { installerHostFromProcess } from './installer-host';

/** Options of the headless host. */
export interface HeadlessOptions {
  readonly dataDir: string;
  readonly port: number;
  readonly maxEventsPerSession?: number;
  /** The built console directory; by default out/renderer next to the bundle, when built. */
  readonly consoleDir?: string;
  readonly logLevel?: LogLevel;
  readonly version?: string;
  /** The installer's view of this machine; by default this process's home, PATH and variables. */
  readonly installerHost?: InstallerHost;
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

/** Starts the daemon and writes daemon.json; a one-line error and null when it cannot start. */
export async function startHeadless(
  options: HeadlessOptions,
  io: HeadlessIo = defaultIo,
): Promise<DaemonHandle | null> {
  configureLogging({ level: options.logLevel ?? 'warn' });
  let daemon: DaemonHandle;
  try {
    daemon = await startDaemon({
      dataDir: options.dataDir,
      port: options.port,
      maxEventsPerSession: options.maxEventsPerSession,
      consoleDir: options.consoleDir ?? defaultConsoleDir(),
      version: options.version,
      installerHost: options.installerHost ?? installerHostFromProcess(),
    });
  } catch (e) {
    if (e instanceof DaemonStartError || e instanceof StoreError) {
      io.err(`aep-companion serve: ${e.message}`);
      return null;
    }
    throw e;
  }
  try {
    writeFileSync(
      join(options.dataDir, 'daemon.json'),
      `${JSON.stringify({ url: daemon.url, pid: process.pid })}\n`,
      { mode: 0o600 },
    );
  } catch (e) {
    await daemon.close();
    io.err(
      `aep-companion serve: cannot write daemon.json in ${options.dataDir}: ${(e as Error).message}`,
    );
    return null;
  }
  io.out(`AEP Companion listening on ${daemon.url}`);
  io.out(`${daemon.url}/#token=${daemon.tokens.operator}`);
  return daemon;
}

/** Drains the daemon and removes daemon.json. */
export async function stopHeadless(daemon: DaemonHandle): Promise<void> {
  await daemon.close();
  rmSync(join(daemon.dataDir, 'daemon.json'), { force: true });
}

/** Runs until SIGINT/SIGTERM; resolves with the exit code. */
export async function runHeadless(
  options: HeadlessOptions,
  io: HeadlessIo = defaultIo,
): Promise<number> {
  const daemon = await startHeadless(options, io);
  if (daemon === null) return 1;
  await new Promise<void>((resolveSignal) => {
    const onSignal = (): void => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      resolveSignal();
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  await stopHeadless(daemon);
  return 0;
}
