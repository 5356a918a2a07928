/**
 * What an agent and its operator feel of the hook path, each figure beside a floor measured in the
 * same run:
 *
 * 1. The installed hook command (the launcher the installer writes, bash fast path) posting a
 *    Stop hook to the daemon, wall time against `node -e 0` (target ≤ 0.15×). Every run must
 *    reach the daemon (a shim that failed open quickly would look fast).
 * 2. The hook round trip (POST /hooks/claude-code, answered after its events are committed) at
 *    concurrency 1 (p50, p99; target p99 ≤ 5 ms) and 16 (hooks/s; target ≥ 2,000), against a bare
 *    node:http echo that parses the same bodies.
 * 3. Resident memory idle (target ≤ 80 MiB) and after 10,000 hooks (target ≤ 1.5× the echo's
 *    after the same 10,000 requests).
 * 4. CPU used while idle over BENCH_IDLE_SECONDS (60) seconds (target ≤ 0.2 %), the echo's beside it,
 *    once both have settled for BENCH_SETTLE_SECONDS (35): start-up's own work (V8 finishing its
 *    compilation, retention's first sweep 30 s after start) is not idling.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { launcherPath } from '../main/core/installer/hook-target';
import { shimFiles } from '../main/core/installer/shim-script';
import { buildCli } from '../scripts/build-cli.mjs';
import { percentile, processCpuMs, report, rssMiB, startBenchDaemon } from './bench-lib';

const root = fileURLToPath(new URL('..', import.meta.url));
const LOAD = Number(process.env.BENCH_HOOK_REQUESTS ?? 10_000);
const WARM = Number(process.env.BENCH_HOOK_WARM ?? 2_000);
const SHIM_RUNS = Number(process.env.BENCH_SHIM_RUNS ?? 20);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 60);
const SETTLE_SECONDS = Number(process.env.BENCH_SETTLE_SECONDS ?? 35);

const ECHO = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const body = '{}';
    res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
    res.end(body);
  });
});
server.listen(0, '127.0.0.1', () => console.log('echo ' + server.address().port));
process.on('SIGTERM', () => server.close(() => process.exit(0)));
`;

async function startEcho(): Promise<{
  url: string;
  pid: number | undefined;
  rssMiB: () => number;
  stop: () => Promise<void>;
}> {
  const child = spawn(process.execPath, ['-e', ECHO], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => {
    let out = '';
    child.stdout!.setEncoding('utf8').on('data', (c: string) => {
      out += c;
      const m = /echo (\d+)/.exec(out);
      if (m) resolve(`http://127.0.0.1:${m[1]}`);
    });
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    url,
    pid: child.pid,
    rssMiB: () => rssMiB(child.pid),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function post(
  agent: Agent,
  url: string,
  path: string,
  token: string,
  body: string,
): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
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

/**
 * Latencies (ms, sorted) of `total` requests issued by `concurrency` workers, and the run's wall
 * time (s). Request numbers start at `first` (a chunk of a longer run goes on with its sessions and
 * tool calls); `agent` keeps its keep-alive sockets across chunks (a fresh one when absent).
 */
async function roundTrips(
  url: string,
  path: string,
  token: string,
  concurrency: number,
  total: number,
  session: string,
  first = 0,
  shared?: Agent,
): Promise<number[] & { seconds?: number }> {
  const started = performance.now();
  const agent = shared ?? new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let next = first;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < first + total) {
        const i = next++;
        const body = JSON.stringify({
          hook_event_name: i % 2 === 0 ? 'PreToolUse' : 'PostToolUse',
          // A tool call's Pre and Post hooks belong to the same session, as they do in a real agent.
          session_id: `${session}-${Math.floor(i / 2) % 16}`,
          cwd: '/work/project',
          tool_name: 'Bash',
          tool_input: { command: `echo ${i}` },
          tool_use_id: `tu_${i - (i % 2)}`,
          ...(i % 2 === 1 ? { tool_response: { stdout: `${i}`, exit_code: 0 } } : {}),
        });
        const t = performance.now();
        const status = await post(agent, url, path, token, body);
        latencies.push(performance.now() - t);
        if (status !== 200) throw new Error(`${path} answered ${status}`);
      }
    }),
  );
  if (shared === undefined) agent.destroy();
  const sorted: number[] & { seconds?: number } = latencies.sort((a, b) => a - b);
  sorted.seconds = (performance.now() - started) / 1000;
  return sorted;
}

/** Builds the CLI bundle into a temp directory (the checked-in out/ may be stale) with an entry like bin/. */
async function buildShim(): Promise<{
  entry: string;
  bundle: string;
  launcher: string;
  dir: string;
}> {
  // The repository's own entry (bin/aep-companion.mjs) over a private bundle laid out as in the
  // repository (bin/ next to out/cli/): `hook` runs the shim's own bundle, which requires no package.
  // Next to it, the shim as the installer writes it into a data directory (launcher + a copy of
  // that bundle, main/core/installer/shim-script.ts): what the installed command hooks run.
  const dir = mkdtempSync(join(tmpdir(), 'aep-bench-cli-'));
  await buildCli({ outdir: join(dir, 'out', 'cli') });
  mkdirSync(join(dir, 'bin'));
  const entry = join(dir, 'bin', 'aep-companion.mjs');
  copyFileSync(join(root, 'bin', 'aep-companion.mjs'), entry);
  const bundle = join(dir, 'out', 'cli', 'hook.cjs');
  const env = {
    home: dir,
    dataDir: join(dir, 'data'),
    daemonUrl: 'http://127.0.0.1:1',
    runtime: { path: process.execPath, electron: false },
    hookBundle: bundle,
  };
  mkdirSync(join(env.dataDir, 'bin'), { recursive: true });
  for (const file of shimFiles(env)) writeFileSync(file.path, file.text, { mode: file.mode });
  return { entry, bundle, launcher: launcherPath(env), dir };
}

function wallMs(file: string, args: string[], input: string, env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const run = spawnSync(file, args, { input, env, encoding: 'utf8' });
  const ms = performance.now() - t;
  if (run.status !== 0)
    throw new Error(`${file} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
}

/** Events the daemon holds for one session, from GET /api/sessions. */
async function sessionEvents(url: string, operator: string, session: string): Promise<number> {
  const res = await fetch(`${url}/api/sessions`, {
    headers: { authorization: `Bearer ${operator}` },
  });
  const sessions = (await res.json()) as Array<{ session: string; eventCount: number }>;
  return sessions.find((s) => s.session === session)?.eventCount ?? 0;
}

/** Median wall times (ms) of `node -e 0` and of the installed hook command, interleaved, in a clean environment. */
async function hookCommand(
  url: string,
  hook: string,
  operator: string,
): Promise<{ bare: number; installed: number }> {
  const { launcher, dir } = await buildShim();
  try {
    // A new user's shell: variables Node reads at start would add the same time to both sides.
    const env = {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '',
      AEP_COMPANION_URL: url,
      AEP_HOOK_TOKEN: hook,
    };
    const payload = JSON.stringify({
      hook_event_name: 'Stop',
      session_id: 'bench-shim',
      cwd: '/w',
      stop_hook_active: false,
    });
    const bare: number[] = [];
    const installed: number[] = [];
    wallMs(process.execPath, ['-e', '0'], '', env);
    wallMs(launcher, ['claude-code'], payload, env);
    for (let i = 0; i < SHIM_RUNS; i++) {
      bare.push(wallMs(process.execPath, ['-e', '0'], '', env));
      installed.push(wallMs(launcher, ['claude-code'], payload, env));
    }
    const held = await sessionEvents(url, operator, 'bench-shim');
    if (held < SHIM_RUNS + 1)
      throw new Error(
        `the installed command reached the daemon on ${held} of ${SHIM_RUNS + 1} runs`,
      );
    const median = (ms: number[]): number =>
      percentile(
        ms.sort((a, b) => a - b),
        50,
      );
    return { bare: median(bare), installed: median(installed) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** CPU share (%) a process used over `seconds` of idling. */
async function idleCpu(pid: number | undefined, seconds: number): Promise<number> {
  const before = processCpuMs(pid);
  await sleep(seconds * 1000);
  return ((processCpuMs(pid) - before) / (seconds * 1000)) * 100;
}

const round = (n: number): number => Number(n.toFixed(3));

const echo = await startEcho();
const daemon = await startBenchDaemon();
try {
  // Idle first: memory and CPU of a daemon (and an echo) that started, settled and serve nobody yet.
  await sleep(SETTLE_SECONDS * 1000);
  const idle = { daemon: daemon.rssMiB(), echo: echo.rssMiB() };
  const [daemonIdleCpu, echoIdleCpu] = await Promise.all([
    idleCpu(daemon.child.pid, IDLE_SECONDS),
    idleCpu(echo.pid, IDLE_SECONDS),
  ]);

  const shim = await hookCommand(daemon.url, daemon.hook, daemon.operator);

  // Warm both sides (JIT, keep-alive sockets, prepared statements), then measure each level on
  // the floor and on the daemon one after the other.
  for (const url of [echo.url, daemon.url])
    await roundTrips(url, '/hooks/claude-code', daemon.hook, 16, WARM, 'warm');
  const measure = async (concurrency: number) => {
    const bare = await roundTrips(
      echo.url,
      '/hooks/claude-code',
      daemon.hook,
      concurrency,
      LOAD,
      `echo-c${concurrency}`,
    );
    const hooks = await roundTrips(
      daemon.url,
      '/hooks/claude-code',
      daemon.hook,
      concurrency,
      LOAD,
      `hook-c${concurrency}`,
    );
    return { bare, hooks };
  };
  const c1 = await measure(1);
  const c16 = await measure(16);
  // Memory after 10,000 (BENCH_HOOK_REQUESTS) hooks at each level, as the echo after the same requests.
  const loaded = { daemon: daemon.rssMiB(), echo: echo.rssMiB() };

  const c16Rate = LOAD / c16.hooks.seconds!;
  const echo16Rate = LOAD / c16.bare.seconds!;
  const checks = {
    command: shim.installed / shim.bare <= 0.15,
    c1p99: percentile(c1.hooks, 99) <= 5,
    c16: c16Rate >= 2_000,
    idleRss: idle.daemon <= 80,
    loadedRss: loaded.daemon / loaded.echo <= 1.5,
    idleCpu: daemonIdleCpu <= 0.2,
  };
  report('hook command (the installed launcher, a Stop hook to the daemon)', {
    runs: SHIM_RUNS,
    'node -e 0 median ms (floor)': round(shim.bare),
    'installed command median ms': round(shim.installed),
    'ratio (target ≤ 0.15)': round(shim.installed / shim.bare),
    pass: checks.command,
  });
  report('hook round trip (POST /hooks/claude-code, answered after commit)', {
    requests: LOAD,
    'c1 echo p50 / p99 ms (floor)': `${round(percentile(c1.bare, 50))} / ${round(percentile(c1.bare, 99))}`,
    'c1 hook p50 ms': round(percentile(c1.hooks, 50)),
    'c1 hook p99 ms (target ≤ 5)': round(percentile(c1.hooks, 99)),
    'c16 echo req/s (floor)': Math.round(echo16Rate),
    'c16 hooks/s (target ≥ 2,000)': Math.round(c16Rate),
    'c16 ratio to the floor': round(c16Rate / echo16Rate),
    pass: checks.c1p99 && checks.c16,
  });
  report('memory and idle CPU', {
    'idle RSS MiB, echo (floor)': round(idle.echo),
    'idle RSS MiB (target ≤ 80)': round(idle.daemon),
    [`RSS MiB after ${LOAD.toLocaleString('en')} requests, echo (floor)`]: round(loaded.echo),
    [`RSS MiB after ${LOAD.toLocaleString('en')} hooks`]: round(loaded.daemon),
    'RSS ratio after load (target ≤ 1.5)': round(loaded.daemon / loaded.echo),
    [`idle CPU % over ${IDLE_SECONDS} s, echo (floor)`]: round(echoIdleCpu),
    [`idle CPU % over ${IDLE_SECONDS} s (target ≤ 0.2)`]: round(daemonIdleCpu),
    pass: checks.idleRss && checks.loadedRss && checks.idleCpu,
  });
} finally {
  await daemon.stop();
  await echo.stop();
}
