/**
 * A fan-out measuring client, run as its own process by fanout.bench.ts (so neither the daemon nor
 * the emitter shares its CPU): opens N deliberately minimal WS subscribers (raw sockets that scan
 * walk the incoming frames and read only the `"benchsent":` timestamp at the tail of each) and keeps a
 * latency histogram. Timestamps are `performance.timeOrigin + performance.now()` in µs, comparable
 * across processes on one machine.
 *
 * IPC: the parent sends `{ cmd: 'connect', port, token, count }` (answered `{ ready }`), then
 * `{ cmd: 'received' }` (answered `{ received }`, every delivery counted so far), `{ cmd: 'reset' }` (forget deliveries so
 * far and ignore events sent before it),
 * `{ cmd: 'measure', from }` (count only events sent at or after `from` µs), then
 * `{ cmd: 'collect' }` (answered with the histogram and counts), then `{ cmd: 'exit' }`.
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { BUCKET_MS, BUCKETS } from './bench-lib';

const MARKER = Buffer.from('"benchsent":');
const ML = MARKER.length;
const nowUs = (): number => (performance.timeOrigin + performance.now()) * 1000;

const histogram = new Uint32Array(BUCKETS + 1);
let received = 0;
let measuredFrom = Infinity;
let measured = 0;

let countedFrom = 0;

function record(nowMicros: number, sentMicros: number): void {
  if (sentMicros < countedFrom) return;
  received++;
  if (sentMicros < measuredFrom) return;
  measured++;
  const ms = (nowMicros - sentMicros) / 1000;
  const bucket = Math.min(BUCKETS, Math.max(0, Math.floor(ms / BUCKET_MS)));
  histogram[bucket]++;
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

function rawSubscriber(port: number, token: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let upgraded = false;
    let head = '';
    let pending: Buffer | null = null;
    socket.on('error', reject);
    socket.on('connect', () => {
      socket.write(
        `GET /socket HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
          `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}\r\nSec-WebSocket-Version: 13\r\nAuthorization: Bearer ${token}\r\n\r\n`,
      );
    });
    // Walks the server's (unmasked) frames header to header; in each frame only the tail is
    // searched for the timestamp (the bench puts it last), so the cost is per frame, not per byte.
    // Only an incomplete frame at the end of a chunk is carried over.
    const scan = (input: Buffer): void => {
      const now = nowUs();
      const buf = pending === null ? input : Buffer.concat([pending, input]);
      pending = null;
      let at = 0;
      for (;;) {
        const left = buf.length - at;
        if (left < 2) break;
        let len = buf[at + 1] & 0x7f;
        let headerLength = 2;
        if (len === 126) {
          if (left < 4) break;
          len = buf.readUInt16BE(at + 2);
          headerLength = 4;
        } else if (len === 127) {
          if (left < 10) break;
          len = buf.readUInt32BE(at + 2) * 2 ** 32 + buf.readUInt32BE(at + 6);
          headerLength = 10;
        }
        const end = at + headerLength + len;
        if (end > buf.length) break;
        const from = Math.max(at + headerLength, end - 64);
        const m = buf.subarray(from, end).lastIndexOf(MARKER);
        if (m !== -1) {
          let i = from + m + ML;
          let value = 0;
          while (i < end && buf[i] >= 48 && buf[i] <= 57) value = value * 10 + (buf[i++] - 48);
          record(now, value);
        }
        at = end;
      }
      if (at < buf.length) pending = Buffer.from(buf.subarray(at));
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

type Command =
  | { cmd: 'connect'; port: number; token: string; count: number }
  | { cmd: 'measure'; from: number }
  | { cmd: 'reset' }
  | { cmd: 'received' }
  | { cmd: 'collect' }
  | { cmd: 'exit' };

const sockets: Socket[] = [];
process.on('message', (message: Command) => {
  void (async () => {
    switch (message.cmd) {
      case 'connect':
        for (let i = 0; i < message.count; i++)
          sockets.push(await rawSubscriber(message.port, message.token));
        process.send!({ ready: true });
        return;
      case 'reset':
        // Deliveries of events sent before the reset (late probes) are not counted from now on.
        countedFrom = nowUs();
        received = 0;
        process.send!({ reset: true });
        return;
      case 'received':
        process.send!({ received });
        return;
      case 'measure':
        measuredFrom = message.from;
        return;
      case 'collect': {
        const buckets: [number, number][] = [];
        for (let i = 0; i <= BUCKETS; i++) if (histogram[i] !== 0) buckets.push([i, histogram[i]]);
        const cpu = process.cpuUsage();
        process.send!({ received, measured, buckets, cpuMs: (cpu.user + cpu.system) / 1000 });
        return;
      }
      case 'exit':
        for (const s of sockets) s.destroy();
        process.disconnect();
        return;
    }
  })();
});
