/**
 * Live fan-out latency: one WS emitter sends 5,000 events/s (50 every 10 ms) and 100 WS
 * subscribers measure send → receive time (p50/p99), including, for the daemon, the durable commit
 * that precedes fan-out. The first second is warm-up and not counted.
 *
 * Everything runs in its own process: the daemon (`serve`), the emitter (this process) and the
 * subscribers (CLIENT_PROCESSES × bench/fanout-client.ts, minimal raw-socket scanners). The same
 * clients and emitter are first pointed at a bare broadcast server (bench/fanout-baseline.ts, in
 * `ws` mode: ws.send per consumer, and `framed` mode: frame once, one socket write per consumer
 * per turn) in the same run, so the daemon's figures come with same-machine, same-load
 * yardsticks: p99 against each baseline's p99, server CPU per delivery against each baseline's.
 */
import { fork, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { BUCKET_MS, BUCKETS, processCpuMs, report, startBenchDaemon, toolEvent } from './bench-lib';

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 100);
const RATE = Number(process.env.BENCH_FANOUT_RATE ?? 5_000);
const SECONDS = Number(process.env.BENCH_FANOUT_SECONDS ?? 6);
const CLIENT_PROCESSES = Number(process.env.BENCH_FANOUT_CLIENTS ?? 2);
const TICK_MS = 10;
const WARMUP_MS = 1_000;
const TARGET_P99_MS = 20;

const here = fileURLToPath(new URL('.', import.meta.url));
const nowUs = (): number => Math.round((performance.timeOrigin + performance.now()) * 1000);

function open(port: number, token: string, hello: Record<string, unknown>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`ws://127.0.0.1:${port}/socket`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], ...hello })));
    ws.once('message', () => resolve(ws));
  });
}

interface Client {
  readonly child: ChildProcess;
  ask<T>(message: Record<string, unknown>, answerKey?: string): Promise<T>;
  tell(message: Record<string, unknown>): void;
}

function startClient(): Client {
  const child = fork(join(here, 'fanout-client.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return {
    child,
    ask: <T>(message: Record<string, unknown>, answerKey?: string) =>
      new Promise<T>((resolve) => {
        const onMessage = (answer: Record<string, unknown>): void => {
          if (answerKey !== undefined && !(answerKey in answer)) return;
          child.off('message', onMessage);
          resolve(answer as T);
        };
        child.on('message', onMessage);
        child.send(message);
      }),
    tell: (message) => child.send(message),
  };
}

interface Outcome {
  sent: number;
  received: number;
  expected: number;
  p50: number;
  p99: number;
  max: number;
  serverCpuUsPerDelivery: number;
  clientCpuMs: number;
}

/** One measured run against a server (daemon or baseline) listening on `port`. */
async function run(
  port: number,
  serverPid: number | undefined,
  tokens: { consumer: string; emitter: string },
): Promise<Outcome> {
  const clients = Array.from({ length: CLIENT_PROCESSES }, () => startClient());
  try {
    const per = clients.map(
      (_, i) =>
        Math.floor(SUBSCRIBERS / CLIENT_PROCESSES) + (i < SUBSCRIBERS % CLIENT_PROCESSES ? 1 : 0),
    );
    await Promise.all(
      clients.map((c, i) =>
        c.ask({ cmd: 'connect', port, token: tokens.consumer, count: per[i] }, 'ready'),
      ),
    );
    const receivedNow = async (): Promise<number> =>
      (
        await Promise.all(
          clients.map((c) => c.ask<{ received: number }>({ cmd: 'received' }, 'received')),
        )
      ).reduce((a, b) => a + b.received, 0);

    // Every subscriber is live once a probe event reached all of them.
    const probe = await open(port, tokens.emitter, {
      role: 'emitter',
      identity: { agent: 'claude-code', instance: 'probe' },
    });
    for (let i = 0; (await receivedNow()) < SUBSCRIBERS; i++) {
      probe.send(JSON.stringify(toolEvent('probe', i + 1, { benchsent: nowUs() })));
      await new Promise((r) => setTimeout(r, 50));
    }
    probe.terminate();
    await Promise.all(clients.map((c) => c.ask({ cmd: 'reset' }, 'reset')));

    const emitter = await open(port, tokens.emitter, {
      role: 'emitter',
      identity: { agent: 'claude-code', instance: 'bench' },
    });
    const perTick = Math.round((RATE * TICK_MS) / 1000);
    let seq = 0;
    const started = performance.now();
    for (const c of clients) c.tell({ cmd: 'measure', from: nowUs() + WARMUP_MS * 1000 });
    let cpuFrom = NaN;
    let sentFrom = 0;
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const elapsed = performance.now() - started;
        if (Number.isNaN(cpuFrom) && elapsed >= WARMUP_MS) {
          cpuFrom = processCpuMs(serverPid);
          sentFrom = seq;
        }
        if (elapsed >= SECONDS * 1000) {
          clearInterval(timer);
          resolve();
          return;
        }
        // Catch up when the timer fires late, so the offered rate stays at RATE.
        const due = Math.floor((elapsed / 1000) * RATE) - seq;
        for (let i = 0; i < Math.max(perTick, due); i++) {
          seq++;
          emitter.send(JSON.stringify(toolEvent('fan', seq, { benchsent: nowUs() })));
        }
      }, TICK_MS);
    });
    const deadline = Date.now() + 10_000;
    let received = await receivedNow();
    while (received < seq * SUBSCRIBERS && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
      received = await receivedNow();
    }
    const cpuMs = processCpuMs(serverPid) - cpuFrom;
    emitter.terminate();

    const collected = await Promise.all(
      clients.map((c) =>
        c.ask<{ received: number; buckets: [number, number][]; cpuMs: number }>(
          { cmd: 'collect' },
          'buckets',
        ),
      ),
    );
    const histogram = new Float64Array(BUCKETS + 1);
    let total = 0;
    for (const { buckets } of collected)
      for (const [i, n] of buckets) {
        histogram[i] += n;
        total += n;
      }
    const at = (p: number): number => {
      const rank = Math.min(total - 1, Math.floor((p / 100) * total));
      let seen = 0;
      for (let i = 0; i <= BUCKETS; i++) {
        seen += histogram[i];
        if (seen > rank) return (i + 1) * BUCKET_MS;
      }
      return NaN;
    };
    let max = NaN;
    for (let i = BUCKETS; i >= 0; i--)
      if (histogram[i] > 0) {
        max = (i + 1) * BUCKET_MS;
        break;
      }
    return {
      sent: seq,
      received: collected.reduce((a, b) => a + b.received, 0),
      expected: seq * SUBSCRIBERS,
      p50: total === 0 ? NaN : at(50),
      p99: total === 0 ? NaN : at(99),
      max,
      serverCpuUsPerDelivery: (cpuMs * 1000) / ((seq - sentFrom) * SUBSCRIBERS),
      clientCpuMs: collected.reduce((a, b) => a + b.cpuMs, 0),
    };
  } finally {
    for (const c of clients) {
      if (c.child.connected) c.tell({ cmd: 'exit' });
      setTimeout(() => c.child.kill(), 2_000).unref();
    }
  }
}

async function baseline(mode: 'ws' | 'framed'): Promise<Outcome> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(here, 'fanout-baseline.ts'), mode],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  try {
    const port = await new Promise<number>((resolve, reject) => {
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (c: string) => {
        out += c;
        const m = /listening (\d+)/.exec(out);
        if (m) resolve(Number(m[1]));
      });
      child.on('exit', (code) => reject(new Error(`baseline exited with ${code}`)));
    });
    return await run(port, child.pid, { consumer: '', emitter: '' });
  } finally {
    child.kill('SIGTERM');
  }
}

const round = (x: number, digits = 2): number => Number(x.toFixed(digits));

const bare = await baseline('ws');
const framed = await baseline('framed');
const daemon = await startBenchDaemon();
let measured: Outcome;
try {
  measured = await run(daemon.port, daemon.child.pid, {
    consumer: daemon.operator,
    emitter: daemon.hook,
  });
} finally {
  await daemon.stop();
}
const complete = measured.received === measured.expected;
report('fanout', {
  subscribers: SUBSCRIBERS,
  'offered events/s': RATE,
  'client processes': CLIENT_PROCESSES,
  'sent events': measured.sent,
  'deliveries received': measured.received,
  'deliveries expected': measured.expected,
  'p50 ms': round(measured.p50),
  'p99 ms': round(measured.p99),
  'max ms': round(measured.max),
  'daemon CPU µs/delivery': round(measured.serverCpuUsPerDelivery, 3),
  'client CPU ms': Math.round(measured.clientCpuMs),
  'ws baseline p50 ms': round(bare.p50),
  'ws baseline p99 ms': round(bare.p99),
  'ws baseline CPU µs/delivery': round(bare.serverCpuUsPerDelivery, 3),
  'ws baseline complete': bare.received === bare.expected,
  'framed baseline p50 ms': round(framed.p50),
  'framed baseline p99 ms': round(framed.p99),
  'framed baseline CPU µs/delivery': round(framed.serverCpuUsPerDelivery, 3),
  'framed baseline complete': framed.received === framed.expected,
  'p99 ratio to ws baseline': round(measured.p99 / bare.p99),
  'CPU ratio to ws baseline': round(measured.serverCpuUsPerDelivery / bare.serverCpuUsPerDelivery),
  'p99 ratio to framed baseline': round(measured.p99 / framed.p99),
  'CPU ratio to framed baseline': round(
    measured.serverCpuUsPerDelivery / framed.serverCpuUsPerDelivery,
  ),
  'target p99 ms': TARGET_P99_MS,
  'every delivery received': complete,
  pass: measured.p99 <= TARGET_P99_MS && complete,
});
