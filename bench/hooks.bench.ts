/**
 * Hooks and steering: the hook round trip (POST /hooks/claude-code to a `serve` child, one live
 * WebSocket subscriber attached) at concurrency 1 and 16 against a bare Node HTTP echo child
 * measured in the same run: throughput (target ≥ 0.6× the floor), p99 (target at c16 ≤ 2×) and CPU
 * per hook from /proc of each server process, its threads' schedstat (target ≤ 2× the floor's CPU
 * per request), and the bytes the daemon writes per hook (WAL frames and checkpoints: a figure that does not move with the
 * machine's load). BENCH_HOOK_REQUESTS (20,000, as issue 12 measured) hooks per level and run, BENCH_HOOK_RUNS (3) runs,
 * medians reported with each run's value, after BENCH_HOOK_WARM (25,000) hooks per level (steady
 * state: the daemon's optimizing compiler is still at work through its first tens of thousands of
 * hooks; measured, the 20,000 hooks after a 2,000-hook warm-up took 15-20 % more CPU each than
 * the 20,000 after a 30,000-hook one, the echo floor settles within a few hundred). Within a
 * run the floor and the daemon take turns in BENCH_HOOK_CHUNKS (20) slices, and the share of the
 * machine's CPU the hypervisor stole during each level is reported beside its ratios; then the
 * command-hook shim's wall time against `node -e 0` (the installed command, target ≤ 1.2×: its bash
 * fast path, with the Node shim behind the same launcher and the CLI's `aep-companion hook` beside
 * it); and command → ack latency
 * for `x.claude-code.control.instruct` over a real WebSocket (target: p99 ≤ 10 ms).
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { launcherPath } from '../main/core/installer/hook-target';
import { shimFiles } from '../main/core/installer/shim-script';
import { buildCli } from '../scripts/build-cli.mjs';
import { machineTicks, percentile, processThreadsCpuMs, processWrittenBytes, report, startBenchDaemon, stolenShare } from './bench-lib';

const root = fileURLToPath(new URL('..', import.meta.url));
const ROUND_TRIPS = Number(process.env.BENCH_HOOK_REQUESTS ?? 20_000);
const CHUNKS = Math.max(1, Number(process.env.BENCH_HOOK_CHUNKS ?? 20));
const RUNS = Number(process.env.BENCH_HOOK_RUNS ?? 3);
const WARM = Number(process.env.BENCH_HOOK_WARM ?? 25_000);
const SHIM_RUNS = Number(process.env.BENCH_SHIM_RUNS ?? 20);
const COMMANDS = Number(process.env.BENCH_COMMANDS ?? 500);

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

async function startEcho(): Promise<{ url: string; pid: number | undefined; stop: () => Promise<void> }> {
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
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function post(agent: Agent, url: string, path: string, token: string, body: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
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

/** A live WebSocket subscriber to everything on the daemon, counting frames (the issue-12 setup). */
async function liveSubscriber(url: string, token: string): Promise<{ frames: () => number; close: () => void }> {
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`, { headers: { authorization: `Bearer ${token}` } });
  let frames = 0;
  let subscribed: () => void = () => undefined;
  const ready = new Promise<void>((resolve) => (subscribed = resolve));
  ws.on('message', (data) => {
    frames++;
    const text = data.toString();
    if (text.includes('"hello"')) ws.send(JSON.stringify({ type: 'subscribe', id: 'live', filter: {} }));
    if (text.includes('"subscribed"')) subscribed();
  });
  await new Promise<void>((resolve) => ws.once('open', () => resolve()));
  ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer', identity: { agent: 'bench' } }));
  await ready;
  return { frames: () => frames, close: () => ws.close() };
}

/** Builds the CLI bundle into a temp directory (the checked-in out/ may be stale) with an entry like bin/. */
async function buildShim(): Promise<{ entry: string; bundle: string; launcher: string; dir: string }> {
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
  const env = { home: dir, dataDir: join(dir, 'data'), daemonUrl: 'http://127.0.0.1:1', runtime: { path: process.execPath, electron: false }, hookBundle: bundle };
  mkdirSync(join(env.dataDir, 'bin'), { recursive: true });
  for (const file of shimFiles(env)) writeFileSync(file.path, file.text, { mode: file.mode });
  return { entry, bundle, launcher: launcherPath(env), dir };
}

function wallMs(file: string, args: string[], input: string, env: NodeJS.ProcessEnv): number {
  const t = performance.now();
  const run = spawnSync(file, args, { input, env, encoding: 'utf8' });
  const ms = performance.now() - t;
  if (run.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${run.status}: ${run.stderr}`);
  return ms;
}

/** The shim variants timed against `node -e 0`, each posting Stop hooks as a session of its own. */
const SHIM_VARIANTS = ['installed', 'installedNode', 'bundle', 'cli'] as const;
type ShimTimes = Record<(typeof SHIM_VARIANTS)[number] | 'bare' | 'inherited', number>;

/** Events the daemon holds for one session, from GET /api/sessions. */
async function sessionEvents(url: string, operator: string, session: string): Promise<number> {
  const res = await fetch(`${url}/api/sessions`, { headers: { authorization: `Bearer ${operator}` } });
  const sessions = (await res.json()) as Array<{ session: string; eventCount: number }>;
  return sessions.find((s) => s.session === session)?.eventCount ?? 0;
}

/**
 * Median wall times, interleaved: `node -e 0`; the installed command as hooks run it (launcher →
 * the bash fast path where /bin/bash exists), and the same launcher with AEP_HOOK_FAST=0 (launcher
 * → the Node shim); the CLI's own bundle run directly (`node out/cli/hook.cjs`); and `aep-companion
 * hook` through the ES-module entry bin/aep-companion.mjs. Each variant posts its Stop hooks as a
 * session of its own, and the daemon must hold an event for every run of each (a shim that failed
 * open quickly would otherwise look fast).
 */
async function shimWallTime(url: string, hook: string, operator: string): Promise<ShimTimes> {
  const { entry, bundle, launcher, dir } = await buildShim();
  try {
    // A clean environment, as a new user's shell has: variables Node reads at start (for one,
    // NODE_EXTRA_CA_CERTS parses a certificate bundle, tens of milliseconds) would add the same
    // time to both sides and flatter the ratio. `node -e 0` under the inherited one is timed beside it.
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', AEP_COMPANION_URL: url, AEP_HOOK_TOKEN: hook };
    const payload = (variant: string): string =>
      JSON.stringify({ hook_event_name: 'Stop', session_id: `bench-shim-${variant}`, cwd: '/w', stop_hook_active: false });
    const runs: Record<keyof ShimTimes, () => number> = {
      bare: () => wallMs(process.execPath, ['-e', '0'], '', env),
      inherited: () => wallMs(process.execPath, ['-e', '0'], '', process.env),
      installed: () => wallMs(launcher, ['claude-code'], payload('installed'), env),
      installedNode: () => wallMs(launcher, ['claude-code'], payload('installedNode'), { ...env, AEP_HOOK_FAST: '0' }),
      bundle: () => wallMs(process.execPath, [bundle, 'claude-code'], payload('bundle'), env),
      cli: () => wallMs(process.execPath, [entry, 'hook', 'claude-code'], payload('cli'), env),
    };
    const times = Object.fromEntries(Object.keys(runs).map((k) => [k, [] as number[]])) as Record<keyof ShimTimes, number[]>;
    for (const measure of Object.values(runs)) measure();
    for (let i = 0; i < SHIM_RUNS; i++) for (const [name, measure] of Object.entries(runs)) times[name as keyof ShimTimes].push(measure());
    for (const variant of SHIM_VARIANTS) {
      const held = await sessionEvents(url, operator, `bench-shim-${variant}`);
      if (held < SHIM_RUNS + 1) throw new Error(`the ${variant} shim reached the daemon on ${held} of ${SHIM_RUNS + 1} runs`);
    }
    const median = (ms: number[]): number => percentile(ms.sort((a, b) => a - b), 50);
    return Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)])) as ShimTimes;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Command → ack latencies (ms) over one operator WebSocket, commands sent one at a time. */
async function commandToAck(url: string, operator: string, hook: string): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  await new Promise<void>((resolve, reject) => {
    const req = request(`${url}/api/steering`, { method: 'PUT', headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error(`PUT /api/steering ${res.statusCode}`))));
    });
    req.end(JSON.stringify({ enabled: true, surface: 'api' }));
  });
  // 20 instructions fit in one session's queue: spread the commands so every one is accepted.
  const sessions = Math.ceil(COMMANDS / 20);
  for (let s = 0; s < sessions; s++) {
    await post(agent, url, '/hooks/claude-code?instruct=1', hook, JSON.stringify({ hook_event_name: 'SessionStart', session_id: `ack-${s}`, cwd: '/w', source: 'startup' }));
  }
  agent.destroy();
  const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`, { headers: { authorization: `Bearer ${operator}` } });
  const waiting = new Map<string, (t: number) => void>();
  let onFrame: (f: Record<string, unknown>) => void = () => undefined;
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString()) as Record<string, unknown>;
    if (typeof frame.cause === 'string' && waiting.has(frame.cause)) {
      const done = waiting.get(frame.cause)!;
      waiting.delete(frame.cause);
      if (frame.type !== 'control.accepted') throw new Error(`command ${frame.cause} answered ${JSON.stringify(frame)}`);
      done(performance.now());
      return;
    }
    onFrame(frame);
  });
  await new Promise<void>((resolve) => ws.once('open', () => resolve()));
  const frame = (type: string) => new Promise<void>((resolve) => (onFrame = (f) => f.type === type && resolve()));
  let ready = frame('hello');
  ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer', identity: { agent: 'bench' } }));
  await ready;
  ready = frame('subscribed');
  ws.send(JSON.stringify({ type: 'subscribe', id: 'acks', filter: { type: ['control.accepted', 'control.rejected'] } }));
  await ready;
  const latencies: number[] = [];
  for (let i = 0; i < COMMANDS; i++) {
    const id = `01KBENCH${String(i).padStart(18, '0')}`;
    const acked = new Promise<number>((resolve) => waiting.set(id, resolve));
    const command = {
      aep: '0.1',
      id,
      type: 'x.claude-code.control.instruct',
      time: new Date().toISOString(),
      source: 'aep://bench/console',
      agent: 'operator',
      session: `ack-${i % sessions}`,
      surface: 'console',
      capture: 'redacted',
      data: { text: `instruction ${i}` },
    };
    const t = performance.now();
    ws.send(JSON.stringify(command));
    latencies.push((await acked) - t);
  }
  ws.close();
  return latencies.sort((a, b) => a - b);
}

const round = (n: number): number => Number(n.toFixed(3));

const echo = await startEcho();
const daemon = await startBenchDaemon();
try {
  const subscriber = await liveSubscriber(daemon.url, daemon.operator);
  // Warm both paths (JIT, keep-alive sockets, prepared statements) at both levels before measuring:
  // the daemon's optimizing compiler is still busy after a few thousand hooks, the echo's is not
  // (the first run measured the compiler's work as much as the hooks before WARM was 25,000).
  for (const concurrency of [16, 1]) {
    await roundTrips(echo.url, '/hooks/claude-code', daemon.hook, concurrency, WARM, `warm-e${concurrency}`);
    await roundTrips(daemon.url, '/hooks/claude-code', daemon.hook, concurrency, WARM, `warm-h${concurrency}`);
  }
  // RUNS rounds, each measuring the floor and then the daemon at each level; every ratio is taken
  // within its round (the machine is shared), and the section reports the medians with each round's value.
  const perRun = new Map<string, number[]>();
  const note = (name: string, value: number): void => {
    const values = perRun.get(name) ?? [];
    values.push(value);
    perRun.set(name, values);
  };
  for (let run = 0; run < RUNS; run++) {
    for (const concurrency of [1, 16]) {
      // The floor and the daemon take turns in CHUNKS slices of the round (which goes first
      // alternates), so a burst of load from outside (the hypervisor's steal comes in bursts of
      // seconds) falls on both rather than on whichever was measured at that moment; 20 slices of
      // 1,000 hooks rather than 6 of 3,334 halved the spread of a run's CPU ratio on a 2-core guest
      // (1.72-1.93 against 1.54-2.04) without moving its centre. CPU comes from the threads'
      // schedstat (ns), which a slice's few tens of ms would lose to clock ticks.
      const ticks = machineTicks();
      const size = Math.ceil(ROUND_TRIPS / CHUNKS);
      const sides = [
        { url: echo.url, pid: echo.pid, label: `echo-c${concurrency}-${run}`, agent: new Agent({ keepAlive: true, maxSockets: concurrency }), latencies: [] as number[], seconds: 0, cpuMs: 0, written: 0 },
        { url: daemon.url, pid: daemon.child.pid, label: `hook-c${concurrency}-${run}`, agent: new Agent({ keepAlive: true, maxSockets: concurrency }), latencies: [] as number[], seconds: 0, cpuMs: 0, written: 0 },
      ];
      for (let k = 0; k < CHUNKS; k++) {
        for (const side of k % 2 === 0 ? sides : [...sides].reverse()) {
          const n = Math.min(size, ROUND_TRIPS - k * size);
          const cpu = processThreadsCpuMs(side.pid);
          const written = processWrittenBytes(side.pid);
          const slice = await roundTrips(side.url, '/hooks/claude-code', daemon.hook, concurrency, n, side.label, k * size, side.agent);
          side.cpuMs += processThreadsCpuMs(side.pid) - cpu;
          side.written += processWrittenBytes(side.pid) - written;
          side.seconds += slice.seconds!;
          side.latencies.push(...slice);
        }
      }
      for (const side of sides) side.agent.destroy();
      const [floorSide, hookSide] = sides;
      const bare: number[] & { seconds?: number } = floorSide.latencies.sort((a, b) => a - b);
      bare.seconds = floorSide.seconds;
      const hooks: number[] & { seconds?: number } = hookSide.latencies.sort((a, b) => a - b);
      hooks.seconds = hookSide.seconds;
      const echoCpu = floorSide.cpuMs / ROUND_TRIPS;
      const hookCpu = hookSide.cpuMs / ROUND_TRIPS;
      const hookWritten = hookSide.written / ROUND_TRIPS;
      const echoRate = ROUND_TRIPS / bare.seconds!;
      const hookRate = ROUND_TRIPS / hooks.seconds!;
      const c = `c${concurrency}`;
      note(`${c} echo floor req/s`, Math.round(echoRate));
      note(`${c} hook req/s`, Math.round(hookRate));
      note(`${c} throughput ratio (≥ 0.6)`, round(hookRate / echoRate));
      note(`${c} echo p50 ms`, round(percentile(bare, 50)));
      note(`${c} hook p50 ms`, round(percentile(hooks, 50)));
      note(`${c} echo p99 ms`, round(percentile(bare, 99)));
      note(`${c} hook p99 ms`, round(percentile(hooks, 99)));
      note(`${c} p99 ratio${concurrency === 16 ? ' (≤ 2)' : ''}`, round(percentile(hooks, 99) / percentile(bare, 99)));
      note(`${c} echo CPU ms/request`, round(echoCpu));
      note(`${c} daemon CPU ms/hook`, round(hookCpu));
      note(`${c} CPU ratio (≤ 2)`, round(hookCpu / echoCpu));
      note(`${c} daemon bytes written/hook (store, WAL and checkpoints)`, Math.round(hookWritten));
      note(`${c} machine CPU stolen by the hypervisor, %`, stolenShare(ticks, machineTicks()));
    }
  }
  const figures: Record<string, number | string | boolean> = { requests: ROUND_TRIPS, 'warm-up hooks per level': WARM, runs: RUNS, 'slices per run (floor and daemon take turns)': CHUNKS };
  const median = (values: readonly number[]): number => percentile([...values].sort((a, b) => a - b), 50);
  for (const [name, values] of perRun) {
    figures[`${name}${RUNS > 1 ? ', median' : ''}`] = median(values);
    if (RUNS > 1) figures[`${name}, each run`] = values.join(' / ');
  }
  const m = (name: string): number => median(perRun.get(name)!);
  let pass = true;
  for (const c of ['c1', 'c16']) pass &&= m(`${c} throughput ratio (≥ 0.6)`) >= 0.6 && m(`${c} CPU ratio (≤ 2)`) <= 2;
  pass &&= m('c16 p99 ratio (≤ 2)') <= 2;
  figures['live WS subscriber frames'] = subscriber.frames();
  subscriber.close();
  report('hook round trip (1 live WS subscriber; CPU from /proc of each server process)', { ...figures, pass });

  const shim = await shimWallTime(daemon.url, daemon.hook, daemon.operator);
  report('hook shim', {
    runs: SHIM_RUNS,
    'node -e 0 median ms': round(shim.bare),
    'node -e 0 with the inherited environment median ms': round(shim.inherited),
    'installed command median ms': round(shim.installed),
    'installed command ratio (≤ 1.2)': round(shim.installed / shim.bare),
    'installed command, Node shim (AEP_HOOK_FAST=0) median ms': round(shim.installedNode),
    'installed command, Node shim ratio': round(shim.installedNode / shim.bare),
    'node out/cli/hook.cjs median ms': round(shim.bundle),
    'node out/cli/hook.cjs ratio': round(shim.bundle / shim.bare),
    'aep-companion hook (ESM bin) median ms': round(shim.cli),
    'aep-companion hook ratio': round(shim.cli / shim.bare),
    pass: shim.installed / shim.bare <= 1.2,
  });

  const acks = await commandToAck(daemon.url, daemon.operator, daemon.hook);
  const p99 = percentile(acks, 99);
  report('command to ack', { commands: COMMANDS, 'p50 ms': round(percentile(acks, 50)), 'p99 ms': round(p99), 'target p99 ms': 10, pass: p99 <= 10 });
} finally {
  await daemon.stop();
  await echo.stop();
}
