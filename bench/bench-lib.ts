/**
 * Shared pieces of the benchmark sections: a `serve` child process on a temp data directory,
 * keep-alive HTTP posting, event builders, and the one-line result format scripts/bench.mjs reads.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));

/** A daemon running as a child process (so client work does not share its event loop). */
export interface BenchDaemon {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** The temp directory holding `dataDir`. */
  readonly dir: string;
  readonly operator: string;
  readonly hook: string;
  readonly child: ChildProcess;
  /** Resident set size of the daemon process in MiB (Linux /proc, else ps). */
  rssMiB(): number;
  /** Stops the daemon (SIGTERM, drained) and removes its directory unless `keep`. */
  stop(options?: { keep?: boolean }): Promise<void>;
  /** Removes the temp directory (after a `stop({ keep: true })`). */
  remove(): void;
}

/**
 * Starts `aep-companion serve --port 0` on a fresh temp directory, from the bundled CLI (what
 * users run; scripts/bench.mjs builds it first), so the figures carry no TypeScript loader.
 */
export async function startBenchDaemon(
  extraArgs: string[] = [],
  options: { readonly dir?: string } = {},
): Promise<BenchDaemon> {
  // `dir`: a directory an earlier daemon of this run used (a restart on the same data).
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'aep-bench-'));
  const dataDir = join(dir, 'data');
  const child = spawn(
    process.execPath,
    [
      ...(process.env.BENCH_DAEMON_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      join(root, 'bin/aep-companion.mjs'),
      'serve',
      '--port',
      '0',
      '--data-dir',
      dataDir,
      ...extraArgs,
    ],
    { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /listening on (http:\/\/127\.0\.0\.1:(\d+))/.exec(out);
      if (m && out.split('\n').length >= 3) resolve(m[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited with ${code}`)));
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    url,
    port: Number(new URL(url).port),
    dataDir,
    dir,
    operator: readFileSync(join(dataDir, 'operator-token'), 'utf8').trim(),
    hook: readFileSync(join(dataDir, 'hook-token'), 'utf8').trim(),
    child,
    rssMiB: () => rssMiB(child.pid),
    stop: async (options = {}) => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
      if (!options.keep) rmSync(dir, { recursive: true, force: true });
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });

/**
 * POSTs an NDJSON body; resolves with the status. A pooled socket the server closed while idle is
 * retried once on a fresh one (the events carry their ids, so a retry is idempotent).
 */
export async function postNdjson(url: string, token: string, body: string): Promise<number> {
  try {
    return await postOnce(url, token, body);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ECONNRESET') throw e;
    return postOnce(url, token, body);
  }
}

function postOnce(url: string, token: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/events`,
      {
        method: 'POST',
        agent,
        headers: {
          Authorization: `Bearer ${token}`,
          'AEP-Version': '0.1',
          'Content-Type': 'application/x-ndjson',
          'Content-Length': Buffer.byteLength(body),
        },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** Resident set size of a process in MiB (Linux /proc); NaN elsewhere. */
export function rssMiB(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

/**
 * CPU time (user + system, ms) a process has used so far, from Linux /proc; NaN elsewhere. The
 * machine is shared and loaded, so the benches report CPU time per event beside wall-clock rates.
 */
export function processCpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime), counted after the ")" that ends the command name.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return NaN;
  }
}

/** Prints one section's figures in the line format scripts/bench.mjs collects. */
export function report(section: string, figures: Record<string, number | string | boolean>): void {
  process.stdout.write(`BENCH ${JSON.stringify({ section, figures })}\n`);
}

/** Percentile of a sorted array. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}
