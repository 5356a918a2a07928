/**
 * Live fan-out latency: one WS emitter sends 5,000 events/s (50 every 10 ms) to a `serve` child
 * and 100 WS subscribers measure send → receive time (p50/p99), including the durable commit that
 * precedes fan-out. The first second is warm-up and not counted.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import WebSocket from 'ws';
import { percentile, report, startBenchDaemon, toolEvent } from './bench-lib';

const SUBSCRIBERS = Number(process.env.BENCH_FANOUT_SUBSCRIBERS ?? 100);
const RATE = Number(process.env.BENCH_FANOUT_RATE ?? 5_000);
const SECONDS = Number(process.env.BENCH_FANOUT_SECONDS ?? 6);
const TICK_MS = 10;
const WARMUP_MS = 1_000;

function open(url: string, token: string, hello: Record<string, unknown>): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace('http', 'ws')}/socket`, {
      headers: { Authorization: `Bearer ${token}` },
    });
    ws.once('error', reject);
    ws.once('open', () => ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], ...hello })));
    ws.once('message', () => resolve(ws));
  });
}

/** A masked client text frame (RFC 6455 §5.3), small frames only. */
function clientFrame(text: string): Buffer {
  const payload = Buffer.from(text);
  const mask = randomBytes(4);
  const header =
    payload.length < 126
      ? Buffer.from([0x81, 0x80 | payload.length])
      : Buffer.from([0x81, 0x80 | 126, payload.length >> 8, payload.length & 255]);
  const masked = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
  return Buffer.concat([header, mask, masked]);
}

const MARKER = Buffer.from('"benchsent":');

/**
 * A deliberately minimal subscriber: a raw socket that scans the incoming bytes for the send
 * timestamps instead of decoding every frame, so the measuring side costs far less CPU than the
 * daemon it measures (a full client would be the bottleneck at 500,000 deliveries per second).
 */
function rawSubscriber(
  port: number,
  token: string,
  onLatency: (ms: number) => void,
): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let upgraded = false;
    let head = '';
    let carry: Buffer | null = null;
    socket.on('error', reject);
    socket.on('connect', () => {
      socket.write(
        `GET /socket HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${token}\r\n\r\n`,
      );
    });
    const ML = MARKER.length;
    // Scans a chunk in place; only a timestamp cut by the chunk boundary is carried over.
    const scan = (chunk: Buffer): void => {
      const now = performance.now();
      let from = 0;
      if (carry !== null) {
        const joint = Buffer.concat([carry, chunk.subarray(0, 40)]);
        carry = null;
        if (joint.indexOf(MARKER) === 0) {
          let i = ML;
          let value = 0;
          while (i < joint.length && joint[i] >= 48 && joint[i] <= 57)
            value = value * 10 + (joint[i++] - 48);
          if (i < joint.length) {
            onLatency(now - value / 1000);
            from = i - (joint.length - Math.min(40, chunk.length));
          } else {
            carry = Buffer.concat([
              joint.subarray(0, joint.length - Math.min(40, chunk.length)),
              chunk,
            ]);
            return;
          }
        }
      }
      let at = chunk.indexOf(MARKER, from);
      while (at !== -1) {
        let i = at + ML;
        let value = 0;
        while (i < chunk.length && chunk[i] >= 48 && chunk[i] <= 57)
          value = value * 10 + (chunk[i++] - 48);
        if (i >= chunk.length) {
          carry = chunk.subarray(at);
          return;
        }
        onLatency(now - value / 1000);
        at = chunk.indexOf(MARKER, i);
      }
      for (let k = Math.min(ML - 1, chunk.length); k > 0; k--) {
        if (chunk.subarray(chunk.length - k).equals(MARKER.subarray(0, k))) {
          carry = chunk.subarray(chunk.length - k);
          return;
        }
      }
    };
    socket.on('data', (chunk: Buffer) => {
      if (!upgraded) {
        head += chunk.toString('latin1');
        const end = head.indexOf('\r\n\r\n');
        if (end === -1) return;
        upgraded = true;
        socket.write(
          clientFrame(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer' })),
        );
        socket.write(clientFrame(JSON.stringify({ type: 'subscribe', id: 'all' })));
        resolve(socket);
        chunk = Buffer.from(head.slice(end + 4), 'latin1');
      }
      scan(chunk);
    });
  });
}

const daemon = await startBenchDaemon();
try {
  const latencies: number[] = [];
  let received = 0;
  let measuring = false;
  const subs: Socket[] = [];
  for (let i = 0; i < SUBSCRIBERS; i++) {
    subs.push(
      await rawSubscriber(daemon.port, daemon.operator, (ms) => {
        received++;
        if (measuring) latencies.push(ms);
      }),
    );
  }
  // Every subscriber is live once a probe event reached all of them.
  const probe = await open(daemon.url, daemon.hook, {
    role: 'emitter',
    identity: { agent: 'claude-code', instance: 'probe' },
  });
  for (let i = 0; received < SUBSCRIBERS; i++) {
    probe.send(
      JSON.stringify(
        toolEvent('probe', i + 1, { benchsent: Math.round(performance.now() * 1000) }),
      ),
    );
    await new Promise((r) => setTimeout(r, 50));
  }
  probe.terminate();
  received = 0;
  const emitter = await open(daemon.url, daemon.hook, {
    role: 'emitter',
    identity: { agent: 'claude-code', instance: 'bench' },
  });
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
        emitter.send(
          JSON.stringify(
            toolEvent('fan', seq, { benchsent: Math.round(performance.now() * 1000) }),
          ),
        );
      }
    }, TICK_MS);
  });
  const deadline = Date.now() + 10_000;
  while (received < seq * SUBSCRIBERS && Date.now() < deadline)
    await new Promise((r) => setTimeout(r, 20));
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
  emitter.terminate();
  for (const socket of subs) socket.destroy();
} finally {
  await daemon.stop();
}
