/**
 * The real companion for the real-CLI tests: bundles the `aep-companion` command line from the
 * current sources (so a stale out/ never hides a change), starts `serve --port 0 --data-dir DIR`
 * as a child process, reads the URL from the data directory's daemon.json and the tokens from its
 * token files, and offers the operator API and the hook shim command line. Everything stops with
 * `stop()`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCli } from '../../scripts/build-cli.mjs';
import type { CliVendor } from './vendor-clis';
import { shellQuote } from './vendor-hook-config';

const REPO = fileURLToPath(new URL('../..', import.meta.url));
const START_TIMEOUT_MS = 60_000;

/** Raised when the companion's `serve` cannot run yet (its command is still a placeholder). */
export class CompanionUnavailable extends Error {}

/** A bundled copy of the command line; `entry` is run with node. */
export interface CompanionCli {
  readonly entry: string;
  /** Removes the bundle. */
  dispose(): Promise<void>;
}

/** Bundles main/cli into a private folder under .cache/ (inside the repository, so its node_modules resolve). */
export async function buildCompanionCli(): Promise<CompanionCli> {
  const dir = join(REPO, '.cache', 'vendor-tests', `cli-${process.pid}-${Date.now()}`);
  await mkdir(dir, { recursive: true });
  try {
    await buildCli({ outdir: dir, logLevel: 'error' });
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  const entry = join(dir, 'aep-companion.mjs');
  await writeFile(
    entry,
    "import { main } from './index.js';\nprocess.exitCode = await main(process.argv.slice(2));\n",
  );
  return { entry, dispose: () => rm(dir, { recursive: true, force: true }) };
}

/** A running daemon. */
export interface Companion {
  readonly url: string;
  readonly dataDir: string;
  readonly tokens: { readonly operator: string; readonly hook: string };
  readonly cli: CompanionCli;
  /** Calls the console API with the operator token; throws with the body on a non-2xx answer. */
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** The shell command of the hook shim for `vendor` (with the steering opt-in when asked). */
  shimCommand(vendor: CliVendor, options?: { instruct?: boolean }): string;
  /** The hook route URL for `vendor` (with `instruct=1` when asked). */
  hookUrl(vendor: CliVendor, options?: { instruct?: boolean }): string;
  /** Runs another `aep-companion` command against this daemon's data directory (`env` is added to the test's environment). */
  runCli(
    args: readonly string[],
    options?: { timeoutMs?: number; env?: Readonly<Record<string, string>> },
  ): Promise<CliResult>;
  /** Everything the daemon printed so far. */
  output(): string;
  stop(): Promise<void>;
}

/** Starts `aep-companion serve` on a free port with `dataDir` (`env` is added to the test's environment, e.g. the user's HOME). */
export async function startCompanion(
  cli: CompanionCli,
  dataDir: string,
  env: Readonly<Record<string, string>> = {},
): Promise<Companion> {
  await mkdir(dataDir, { recursive: true });
  const child = spawn(
    process.execPath,
    [cli.entry, 'serve', '--port', '0', '--data-dir', dataDir],
    {
      cwd: REPO,
      env: { ...process.env, ...env, AEP_COMPANION_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (output += c.toString('utf8')));
  const exited = new Promise<number | null>((resolve) =>
    child.on('close', (code) => resolve(code)),
  );
  const url = await waitForDaemon(child, dataDir, exited, () => output);
  const tokens = {
    operator: readFileSync(join(dataDir, 'operator-token'), 'utf8').trim(),
    hook: readFileSync(join(dataDir, 'hook-token'), 'utf8').trim(),
  };
  const api = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const res = await fetch(new URL(path, url), {
      method,
      headers: {
        authorization: `Bearer ${tokens.operator}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(30_000),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 500)}`);
    return (text ? JSON.parse(text) : undefined) as T;
  };
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(killer);
    }
  };
  return {
    url,
    dataDir,
    tokens,
    cli,
    api,
    shimCommand: (vendor, options = {}) =>
      `${options.instruct ? 'AEP_INSTRUCT=1 ' : ''}${shellQuote(process.execPath)} ${shellQuote(cli.entry)} hook ${vendor} --data-dir ${shellQuote(dataDir)}`,
    hookUrl: (vendor, options = {}) =>
      `${url}/hooks/${vendor}${options.instruct ? '?instruct=1' : ''}`,
    runCli: (args, options = {}) =>
      runNode(
        [cli.entry, ...args, '--data-dir', dataDir],
        options.timeoutMs ?? 60_000,
        options.env,
      ),
    output: () => output,
    stop,
  };
}

async function waitForDaemon(
  child: ChildProcess,
  dataDir: string,
  exited: Promise<number | null>,
  output: () => string,
): Promise<string> {
  let gone: number | null | undefined;
  void exited.then((code) => (gone = code));
  const deadline = Date.now() + START_TIMEOUT_MS;
  const file = join(dataDir, 'daemon.json');
  while (Date.now() < deadline) {
    if (gone !== undefined) {
      const text = output();
      if (/not available yet/.test(text))
        throw new CompanionUnavailable(
          `aep-companion serve is not implemented yet: ${text.trim()}`,
        );
      throw new Error(`aep-companion serve exited (${gone}) before writing daemon.json:\n${text}`);
    }
    if (existsSync(file)) {
      try {
        const info = JSON.parse(readFileSync(file, 'utf8')) as { url?: string; pid?: number };
        if (info.url && info.pid === child.pid && (await healthy(info.url)))
          return info.url.replace(/\/$/, '');
      } catch {
        // Half-written; read again.
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  child.kill('SIGKILL');
  throw new Error(
    `aep-companion serve did not come up within ${START_TIMEOUT_MS} ms:\n${output()}`,
  );
}

async function healthy(url: string): Promise<boolean> {
  try {
    const res = await fetch(new URL('/healthz', url), { signal: AbortSignal.timeout(2_000) });
    return res.ok;
  } catch {
    return false;
  }
}

/** What a finished `aep-companion` command left. */
export interface CliResult {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

function runNode(
  args: readonly string[],
  timeoutMs: number,
  env?: Readonly<Record<string, string>>,
): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: REPO,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
