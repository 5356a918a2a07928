/**
 * The fan-out yardstick, run as its own process by fanout.bench.ts: a bare `ws` broadcast server
 * on the same loopback with the same clients. It answers hello, and forwards every text frame an
 * emitter sends to every consumer as received (no validation, no store, no filters or ceilings).
 * Two modes (first argument): `ws` sends with `ws.send` per consumer (the plain library way);
 * `framed` builds each frame once and writes all of a turn's frames to each consumer's socket in
 * one write (the daemon's delivery technique, without anything else the daemon does).
 * Prints `listening <port>` once ready.
 */
import { createServer } from 'node:http';
import type { Socket } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import { textFrame } from '../main/core/relay/ws-frame';

const framed = process.argv[2] === 'framed';
const outboxes = new Map<Socket, Buffer[]>();
let flushQueued = false;
const flush = (): void => {
  flushQueued = false;
  for (const [socket, frames] of outboxes)
    if (!socket.destroyed) socket.write(frames.length === 1 ? frames[0] : Buffer.concat(frames));
  outboxes.clear();
};

const server = createServer();
const wss = new WebSocketServer({ server, path: '/socket', perMessageDeflate: false });
const consumers = new Set<WebSocket>();
wss.on('connection', (ws) => {
  let emitter = false;
  let greeted = false;
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    if (!greeted) {
      greeted = true;
      const hello = JSON.parse(data.toString()) as { role?: string };
      emitter = hello.role === 'emitter';
      if (!emitter) consumers.add(ws);
      ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'both' }));
      return;
    }
    if (!emitter) return;
    const text = data.toString();
    if (!framed) {
      for (const c of consumers) c.send(text);
      return;
    }
    const frame = textFrame(text);
    for (const c of consumers) {
      const socket = (c as unknown as { _socket: Socket })._socket;
      const queued = outboxes.get(socket);
      if (queued) queued.push(frame);
      else outboxes.set(socket, [frame]);
    }
    if (!flushQueued) {
      flushQueued = true;
      setImmediate(flush);
    }
  });
  ws.on('close', () => consumers.delete(ws));
});
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`listening ${typeof address === 'object' && address ? address.port : 0}\n`);
});
process.on('SIGTERM', () => {
  for (const c of consumers) c.terminate();
  server.close(() => process.exit(0));
});
