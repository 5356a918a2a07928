/** A small real HTTP server that mimics the daemon's documented hook surface: GET /healthz and POST /hooks/:vendor with the hook token. */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One hook call the fake daemon received. */
export interface ReceivedHook {
  readonly vendor: string;
  readonly query: Record<string, string>;
  readonly authorization: string | undefined;
  readonly body: unknown;
}

/** A running fake daemon. */
export interface FakeDaemon {
  readonly url: string;
  readonly hooks: ReceivedHook[];
  /** What POST /hooks/:vendor answers (status and raw body). */
  reply: { status: number; body: string };
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString('utf8')));
    req.on('end', () => resolve(text));
  });
}

/** Starts the fake daemon on a free loopback port, accepting `token` as the hook token. */
export async function startFakeDaemon(token: string): Promise<FakeDaemon> {
  const hooks: ReceivedHook[] = [];
  const state = { reply: { status: 200, body: '{}' } };
  const server: Server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (req.method === 'GET' && url.pathname === '/healthz') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
      return;
    }
    const match = /^\/hooks\/([a-z-]+)$/.exec(url.pathname);
    if (req.method === 'POST' && match) {
      const text = await readBody(req);
      if (req.headers.authorization !== `Bearer ${token}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // Recorded as text.
      }
      hooks.push({
        vendor: match[1],
        query: Object.fromEntries(url.searchParams),
        authorization: req.headers.authorization,
        body,
      });
      res
        .writeHead(state.reply.status, { 'content-type': 'application/json' })
        .end(state.reply.body);
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    hooks,
    get reply() {
      return state.reply;
    },
    set reply(value) {
      state.reply = value;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A loopback URL where nothing listens (a port that was just freed). */
export async function deadUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}
