/**
 * The real daemon for console tests: the `aep-companion` command line bundled from the current
 * sources into a private folder, run as `serve --port 0 --data-dir DIR --console-dir out/renderer`.
 * The console URL (with `#token=…`) is read from what `serve` prints, exactly as a user would.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { CONSOLE_DIR, REPO } from './console-build';

/** A running `serve`. */
export interface ServeProcess {
  readonly url: string;
  /** The console link `serve` printed, `#token=` included. */
  readonly consoleUrl: string;
  readonly dataDir: string;
  readonly operatorToken: string;
  readonly hookToken: string;
  readonly output: () => string;
  /** Stops the daemon (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

/** The `serve` this module starts, which can also be killed outright. */
export interface KillableServe extends ServeProcess {
  /** The daemon's process id. */
  readonly pid: number;
  /** Sends `signal` at once (SIGKILL: a crash, no shutdown runs) and waits for the exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

let cliEntry: string | null = null;

/** Bundles main/cli once per test run into .cache/console-tests (inside the repo so node_modules resolve). */
export async function bundleCli(): Promise<string> {
  if (cliEntry) return cliEntry;
  const dir = join(REPO, '.cache', 'console-tests', `cli-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  await build({
    absWorkingDir: REPO,
    entryPoints: ['main/cli/index.ts'],
    outdir: dir,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    packages: 'external',
    alias: { 'ajv/dist/2020': 'ajv/dist/2020.js' },
    logLevel: 'error',
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  const entry = join(dir, 'aep-companion.mjs');
  writeFileSync(entry, "import { main } from './index.js';\nprocess.exitCode = await main(process.argv.slice(2));\n");
  cliEntry = entry;
  return entry;
}

/** Removes the bundle. */
export function disposeCli(): void {
  if (!cliEntry) return;
  rmSync(join(cliEntry, '..'), { recursive: true, force: true });
  cliEntry = null;
}

/** Starts `serve`; `port` 0 picks a free one; pass `dataDir` to restart on existing data. */
export async function startServe(options: { dataDir?: string; port?: number; env?: NodeJS.ProcessEnv } = {}): Promise<KillableServe> {
  const entry = await bundleCli();
  const dataDir = options.dataDir ?? mkdtempSync(join(tmpdir(), 'aep-console-'));
  const child: ChildProcess = spawn(process.execPath, [entry, 'serve', '--port', String(options.port ?? 0), '--data-dir', dataDir, '--console-dir', CONSOLE_DIR], {
    cwd: REPO,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: { ...process.env, ...options.env } } : {}),
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const consoleUrl = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not print its console URL:\n${out}`)), 60_000);
    const check = () => {
      const m = /(http:\/\/127\.0\.0\.1:\d+\/#token=\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}:\n${out}`));
    });
  });
  const url = new URL(consoleUrl).origin;
  const operatorToken = decodeURIComponent(consoleUrl.split('#token=')[1]);
  const hookToken = readFileSync(join(dataDir, 'hook-token'), 'utf8').trim();
  return {
    url,
    consoleUrl,
    dataDir,
    operatorToken,
    hookToken,
    output: () => out,
    pid: child.pid as number,
    async kill(signal) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill(signal);
        await exited;
      }
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}

/** Removes a data directory made by startServe. */
export function removeDataDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}
