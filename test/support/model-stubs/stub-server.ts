/**
 * The shared core of the model-API stubs: a real HTTP server on 127.0.0.1 (port 0) that records
 * every request (path and parsed JSON body) before a vendor-specific handler answers it, lets a
 * test wait for a request matching a predicate, and can hold a response until the test releases it
 * (so an instruction can be sent while the agent is provably mid-session).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the stub received, in arrival order. */
export interface RecordedRequest {
  readonly index: number;
  /** performance.now() when the body had arrived (same clock as the hook receiver's). */
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body as text, exactly as received. */
  readonly raw: string;
  /** The body parsed as JSON, or undefined when it is not JSON. */
  readonly body: unknown;
}

/** Answers one recorded request; `res` is the live response. */
export type StubHandler = (req: RecordedRequest, res: ServerResponse) => void | Promise<void>;

/** A response held back until the test calls `release()`. */
export interface HeldResponse {
  /** Resolves with the request whose response is being held. */
  readonly reached: Promise<RecordedRequest>;
  /** Lets the held response (and any later match) proceed. */
  release(): void;
}

/** Options of `waitForRequest`. */
export interface WaitOptions {
  /** Upper bound of the wait; the rejection lists the requests seen. Default 120 s. */
  readonly timeoutMs?: number;
  /** Only requests with an index at or after this one count. */
  readonly fromIndex?: number;
}

const MAX_BODY_BYTES = 32 * 1024 * 1024;

interface Hold {
  readonly predicate: (req: RecordedRequest) => boolean;
  readonly gate: Promise<void>;
  readonly onReached: (req: RecordedRequest) => void;
  taken: boolean;
}

interface Waiter {
  readonly predicate: (req: RecordedRequest) => boolean;
  readonly fromIndex: number;
  readonly resolve: (req: RecordedRequest) => void;
}

/** A recording HTTP server; vendor stubs supply the handler. */
export class StubServer {
  /** Every request received, in arrival order. */
  readonly requests: RecordedRequest[] = [];
  private readonly server: Server;
  private readonly waiters = new Set<Waiter>();
  private readonly holds: Hold[] = [];
  private readonly sockets = new Set<import('node:net').Socket>();
  private base = '';

  constructor(
    private readonly name: string,
    private readonly handler: StubHandler,
  ) {
    this.server = createServer((req, res) => void this.onRequest(req, res));
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Binds to 127.0.0.1 on a free port. */
  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    const { port } = this.server.address() as AddressInfo;
    this.base = `http://127.0.0.1:${port}`;
    return this;
  }

  /** The base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  get url(): string {
    return this.base;
  }

  /** Resolves with the first request (already seen or future) that matches; bounded. */
  waitForRequest(
    predicate: (req: RecordedRequest) => boolean,
    options: WaitOptions = {},
  ): Promise<RecordedRequest> {
    const fromIndex = options.fromIndex ?? 0;
    const seen = this.requests.find((r) => r.index >= fromIndex && predicate(r));
    if (seen) return Promise.resolve(seen);
    const timeoutMs = options.timeoutMs ?? 120_000;
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        predicate,
        fromIndex,
        resolve: (req) => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve(req);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        reject(
          new Error(
            `${this.name} stub: no matching request within ${timeoutMs} ms; seen:\n${this.describe()}`,
          ),
        );
      }, timeoutMs);
      this.waiters.add(waiter);
    });
  }

  /** Holds the response to the next request matching `predicate` until `release()`. */
  hold(predicate: (req: RecordedRequest) => boolean): HeldResponse {
    let release!: () => void;
    let onReached!: (req: RecordedRequest) => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const reached = new Promise<RecordedRequest>((resolve) => (onReached = resolve));
    this.holds.push({ predicate, gate, onReached, taken: false });
    return { reached, release };
  }

  /** One line per request (method, path, a body excerpt), for failure messages. */
  describe(): string {
    return (
      this.requests
        .map((r) => `#${r.index} ${r.method} ${r.path} ${r.raw.slice(0, 200)}`)
        .join('\n') || '(none)'
    );
  }

  /** Stops listening and drops open connections (streams the CLI left open). */
  async close(): Promise<void> {
    for (const hold of this.holds) hold.taken = true;
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    try {
      const raw = await readBody(req);
      const recorded: RecordedRequest = {
        index: this.requests.length,
        at: performance.now(),
        method: req.method ?? 'GET',
        path: req.url ?? '/',
        headers: req.headers,
        raw,
        body: parseJson(raw),
      };
      this.requests.push(recorded);
      for (const waiter of [...this.waiters]) {
        if (recorded.index >= waiter.fromIndex && waiter.predicate(recorded))
          waiter.resolve(recorded);
      }
      const hold = this.holds.find((h) => !h.taken && h.predicate(recorded));
      if (hold) {
        hold.taken = true;
        hold.onReached(recorded);
        await hold.gate;
      }
      await this.handler(recorded, res);
    } catch (error) {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: `stub failure: ${String(error)}` } }));
    }
  }
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_BODY_BYTES) {
        reject(new Error('request body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function parseJson(raw: string): unknown {
  if (!raw) return undefined;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return undefined;
  }
}

/** Writes one server-sent event (`event:` line only when named). */
export function writeSse(res: ServerResponse, data: unknown, event?: string): void {
  const head = event ? `event: ${event}\n` : '';
  res.write(`${head}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

/** Starts an SSE response. */
export function startSse(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
}

/** Answers JSON with a status. */
export function sendJson(res: ServerResponse, status: number, value: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(value));
}

/** Whether the request body contains `text` (as sent, or JSON-escaped inside a string). */
export function requestContains(req: RecordedRequest, text: string): boolean {
  return req.raw.includes(text) || req.raw.includes(JSON.stringify(text).slice(1, -1));
}
