/**
 * Bytes allocated per hook on the daemon side, and the minor GCs they cause (what sets the c16 p99
 * of the hook round trip). The daemon runs in this process (hooks feature only, real SQLite, port 0);
 * the load comes from a child process over keep-alive HTTP, so the child's allocation is not
 * counted, and the live WebSocket subscriber sits in the child too. The floor is the same load
 * against a bare Node HTTP echo server in this process (parse the JSON body, answer `{}`).
 *
 * Allocation is read from V8's `GCProfiler`: the heap's used bytes before each GC minus its used
 * bytes after the previous one, summed, plus the growth since the last GC (a GC at the start and at
 * the end of each run). GC count and pause come from a `PerformanceObserver` on 'gc'.
 *
 * BENCH_ALLOC_HOOKS (default 5,000) hooks per run at concurrency BENCH_ALLOC_CONCURRENCY (16),
 * BENCH_ALLOC_RUNS (3) runs each; BENCH_ALLOC_PROFILE=<file> also writes a sampling heap profile
 * (every allocation, collected or not) of one more daemon run and prints its top allocation sites.
 * Run alone: `node --import tsx bench/hook-alloc.bench.ts`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { GCProfiler, getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { createHooksFeature } from '../main/core/hooks/hooks-feature';
import { startDaemon } from '../main/core/daemon';
import { configureLogging } from '../main/core/logger';
import { report } from './bench-lib';

const root = fileURLToPath(new URL('..', import.meta.url));
const HOOKS = Number(process.env.BENCH_ALLOC_HOOKS ?? 5_000);
const CONCURRENCY = Number(process.env.BENCH_ALLOC_CONCURRENCY ?? 16);
const RUNS = Number(process.env.BENCH_ALLOC_RUNS ?? 3);
const WARM = 2_000;
const PROFILE = process.env.BENCH_ALLOC_PROFILE;

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The load: warms with WARM hooks, then posts `hooks` per 'go' message; a WS subscriber when asked. */
const LOAD = `
const http = require('node:http');
const [url, token, operator, concurrency] = process.argv.slice(1);
const agent = new http.Agent({ keepAlive: true, maxSockets: Number(concurrency) });
let frames = 0;
function post(body) {
  return new Promise((resolve, reject) => {
    const req = http.request(url + '/hooks/claude-code', { method: 'POST', agent, headers: {
      authorization: 'Bearer ' + token, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve() : reject(new Error('answered ' + res.statusCode))));
    });
    req.on('error', reject);
    req.end(body);
  });
}
async function load(total, prefix) {
  let next = 0;
  await Promise.all(Array.from({ length: Number(concurrency) }, async () => {
    while (next < total) {
      const i = next++;
      await post(JSON.stringify({
        hook_event_name: i % 2 === 0 ? 'PreToolUse' : 'PostToolUse',
        session_id: prefix + '-' + (Math.floor(i / 2) % 16),
        cwd: '/work/project',
        tool_name: 'Bash',
        tool_input: { command: 'echo ' + i },
        tool_use_id: 'tu_' + prefix + '_' + (i - (i % 2)),
        ...(i % 2 === 1 ? { tool_response: { stdout: String(i), exit_code: 0 } } : {}),
      }));
    }
  }));
}
async function subscribe() {
  const WebSocket = require('ws');
  const ws = new WebSocket(url.replace(/^http/, 'ws') + '/socket', { headers: { authorization: 'Bearer ' + operator } });
  await new Promise((resolve) => {
    ws.on('message', (data) => {
      frames++;
      const text = data.toString();
      if (text.includes('"hello"')) ws.send(JSON.stringify({ type: 'subscribe', id: 'live', filter: {} }));
      if (text.includes('"subscribed"')) resolve();
    });
    ws.once('open', () => ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer', identity: { agent: 'bench' } })));
  });
}
(async () => {
  if (operator !== '-') await subscribe();
  await load(${WARM}, 'warm');
  let run = 0;
  process.on('message', async (m) => {
    if (m.stop) { agent.destroy(); process.exit(0); }
    await load(m.hooks, 'run' + run++);
    process.send({ done: true, frames });
  });
  process.send({ ready: true });
})().catch((e) => { console.error(e); process.exit(1); });
`;

interface Load {
  run(hooks: number): Promise<void>;
  stop(): Promise<void>;
}

async function startLoad(url: string, token: string, operator: string): Promise<Load> {
  const child: ChildProcess = spawn(process.execPath, ['-e', LOAD, url, token, operator, String(CONCURRENCY)], {
    cwd: root,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let waiting: (() => void) | undefined;
  let failed: (e: Error) => void = () => undefined;
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  child.on('exit', (code) => code !== 0 && failed(new Error(`load exited with ${code}`)));
  child.on('message', () => waiting?.());
  const next = (): Promise<void> =>
    new Promise<void>((resolve, reject) => {
      waiting = resolve;
      failed = reject;
    });
  await next();
  return {
    run: (hooks) => {
      const done = next();
      child.send({ hooks });
      return done;
    },
    stop: async () => {
      child.send({ stop: true });
      await exited;
    },
  };
}

interface Figures {
  bytes: number;
  gcs: number;
  minor: number;
  pauseMs: number;
}

/** Bytes allocated in this process, GCs and their pause while `work` runs. */
async function measure(work: () => Promise<void>): Promise<Figures> {
  gc();
  const pauses: { kind: number; ms: number }[] = [];
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) pauses.push({ kind: (e.detail as { kind: number }).kind, ms: e.duration });
  });
  observer.observe({ entryTypes: ['gc'] });
  const profiler = new GCProfiler();
  let previous = getHeapStatistics().used_heap_size;
  profiler.start();
  await work();
  const used = getHeapStatistics().used_heap_size;
  const data = profiler.stop();
  let bytes = 0;
  for (const s of data.statistics) {
    bytes += Math.max(0, s.beforeGC.heapStatistics.usedHeapSize - previous);
    previous = s.afterGC.heapStatistics.usedHeapSize;
  }
  bytes += Math.max(0, used - previous);
  await new Promise((resolve) => setImmediate(resolve));
  observer.disconnect();
  // kind 1 is a scavenge (perf_hooks.constants.NODE_PERFORMANCE_GC_MINOR).
  return { bytes, gcs: pauses.length, minor: pauses.filter((p) => p.kind === 1).length, pauseMs: pauses.reduce((a, p) => a + p.ms, 0) };
}

function echoServer(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      JSON.parse(Buffer.concat(chunks).toString('utf8'));
      const body = '{}';
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': body.length });
      res.end(body);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as { port: number }).port}` })));
}

/** Top allocation sites (self bytes, sampled) of a sampling heap profile. */
function topSites(profile: { head: ProfileNode }, count: number): string[] {
  const sites = new Map<string, number>();
  const walk = (node: ProfileNode): void => {
    const f = node.callFrame;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/work\/main\//, '')}:${f.lineNumber + 1}:${f.columnNumber + 1}`;
    if (node.selfSize > 0) sites.set(key, (sites.get(key) ?? 0) + node.selfSize);
    for (const c of node.children) walk(c);
  };
  walk(profile.head);
  const total = [...sites.values()].reduce((a, b) => a + b, 0);
  return [...sites.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([k, v]) => `${((100 * v) / total).toFixed(1).padStart(5)} %  ${k}`);
}
interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  selfSize: number;
  children: ProfileNode[];
}

const perHook = (f: Figures): { bytes: number; gcs: number; minor: number; pause: number } => ({
  bytes: f.bytes / HOOKS,
  gcs: (f.gcs * 1000) / HOOKS,
  minor: (f.minor * 1000) / HOOKS,
  pause: (f.pauseMs * 1000) / HOOKS,
});
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const round = (n: number, digits = 1): number => Number(n.toFixed(digits));

configureLogging({ level: 'error' });
const dir = mkdtempSync(join(tmpdir(), 'aep-bench-alloc-'));
const echo = await echoServer();
const daemon = await startDaemon({ dataDir: join(dir, 'data'), port: 0, baseFeatures: [createHooksFeature({ sweepEveryMs: 0 })] });
try {
  const floorLoad = await startLoad(echo.url, daemon.tokens.hook, '-');
  const hookLoad = await startLoad(daemon.url, daemon.tokens.hook, daemon.tokens.operator);
  const floor: ReturnType<typeof perHook>[] = [];
  const hooks: ReturnType<typeof perHook>[] = [];
  for (let r = 0; r < RUNS; r++) {
    floor.push(perHook(await measure(() => floorLoad.run(HOOKS))));
    hooks.push(perHook(await measure(() => hookLoad.run(HOOKS))));
  }
  if (PROFILE !== undefined) {
    const session = new Session();
    session.connect();
    await session.post('HeapProfiler.startSampling', { samplingInterval: 512, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    await hookLoad.run(HOOKS);
    const { profile } = (await session.post('HeapProfiler.stopSampling')) as unknown as { profile: { head: ProfileNode } };
    session.disconnect();
    writeFileSync(PROFILE, JSON.stringify(profile));
    process.stderr.write(`hook-alloc: top allocation sites (${PROFILE})\n${topSites(profile, 40).join('\n')}\n`);
  }
  await floorLoad.stop();
  await hookLoad.stop();
  const m = (xs: ReturnType<typeof perHook>[], k: keyof ReturnType<typeof perHook>): number => median(xs.map((x) => x[k]));
  report('hook allocation (daemon in-process, load from a child over keep-alive HTTP, 1 live WS subscriber)', {
    hooks: HOOKS,
    concurrency: CONCURRENCY,
    runs: RUNS,
    'echo floor bytes/request': Math.round(m(floor, 'bytes')),
    'daemon bytes/hook': Math.round(m(hooks, 'bytes')),
    'daemon bytes/hook, each run': hooks.map((h) => Math.round(h.bytes)).join(' / '),
    'daemon bytes/hook above the floor': Math.round(m(hooks, 'bytes') - m(floor, 'bytes')),
    'bytes ratio (daemon / floor)': round(m(hooks, 'bytes') / m(floor, 'bytes'), 2),
    'echo floor GCs per 1,000 (minor)': `${round(m(floor, 'gcs'))} (${round(m(floor, 'minor'))})`,
    'daemon GCs per 1,000 hooks (minor)': `${round(m(hooks, 'gcs'))} (${round(m(hooks, 'minor'))})`,
    'echo floor GC pause ms per 1,000': round(m(floor, 'pause')),
    'daemon GC pause ms per 1,000 hooks': round(m(hooks, 'pause')),
  });
} finally {
  await daemon.close();
  echo.server.close();
  rmSync(dir, { recursive: true, force: true });
}
