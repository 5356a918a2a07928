/**
 * Live fan-out latency: one WS emitter sends 5,000 events/s (50 every 10 ms) to a `serve` child
 * and 100 WS subscribers measure send → receive time (p50/p99), including the durable commit that
 * precedes fan-out. The first second is warm-up and not counted.
 */
import WebSocket from 'ws';
import { percentile, report, startBenchDaemon, toolEvent } from './bench-lib';

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 100);
const RATE = Number(process.env.BENCH_FANOUT_RATE ?? 5_000);
const SECONDS = Number(process.env.BENCH_FANOUT_SECONDS ?? 6);
const TICK_MS = 10;
const WARMUP_MS = 1_000;

function open(url: string, token: string, hello: Record<string, unknown>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/socket`, { headers: { Authorization: `Bearer ${token}` } });
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], ...hello })));
    ws.once('message', () => resolve(ws));
  });
}

const daemon = await startBenchDaemon();
try {
  const latencies: number[] = [];
  let received = 0;
  let measuring = false;
  const subs: WebSocket[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    const ws = await open(daemon.url, daemon.operator, { role: 'consumer' });
    ws.send(JSON.stringify({ type: 'subscribe', id: 'all' }));
    ws.on('message', (data: Buffer) => {
      const text = data.toString('latin1');
      const at = text.indexOf('"benchsent":');
      if (at === -1) return;
      received++;
      if (!measuring) return;
      const sent = Number(/^"benchsent":(\d+)/.exec(text.slice(at))?.[1]);
      latencies.push(performance.now() - sent / 1000);
    });
    subs.push(ws);
  }
  const emitter = await open(daemon.url, daemon.hook, { role: 'emitter', identity: { agent: 'claude-code', instance: 'bench' } });
  const perTick = Math.round((RATE * TICK_MS) / 1000);
  let seq = 0;
  const started = performance.now();
  await new Promise<void>((resolve) => {
    const timer = setInterval(() => {
      const elapsed = performance.now() - started;
      measuring = elapsed >= WARMUP_MS;
      if (elapsed >= SECONDS * 1000) {
        clearInterval(timer);
        resolve();
        return;
      }
      // Catch up when the timer fires late, so the offered rate stays at RATE.
      const due = Math.floor((elapsed / 1000) * RATE) - seq;
      for (let i = 0; i < Math.max(perTick, due); i++) {
        seq++;
        emitter.send(JSON.stringify(toolEvent('fan', seq, { benchsent: Math.round(performance.now() * 1000) })));
      }
    }, TICK_MS);
  });
  const deadline = Date.now() + 10_000;
  while (received < seq * SUBSCRIBERS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  measuring = false;
  const sorted = Float64Array.from(latencies).sort();
  const p99 = percentile(Array.from(sorted), 99);
  report('fanout', {
    subscribers: SUBSCRIBERS,
    'offered events/s': RATE,
    'sent events': seq,
    'deliveries received': received,
    'deliveries expected': seq * SUBSCRIBERS,
    'p50 ms': Number(percentile(Array.from(sorted), 50).toFixed(2)),
    'p99 ms': Number(p99.toFixed(2)),
    'max ms': Number((sorted[sorted.length - 1] ?? NaN).toFixed(2)),
    'target p99 ms': 20,
    pass: p99 <= 20 && received === seq * SUBSCRIBERS,
  });
  for (const ws of [...subs, emitter]) ws.terminate();
} finally {
  await daemon.stop();
}
