/**
 * The fan-out yardstick, run as its own process by fanout.bench.ts: a bare `ws` broadcast server
 * on the same loopback with the same clients. It answers hello, and forwards every text frame an
 * emitter sends to every consumer as received (no validation, no store, no filters or ceilings).
 * Prints `listening <port>` once ready.
 */
import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';

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
    for (const c of consumers) c.send(text);
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
