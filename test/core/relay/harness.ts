/**
 * Test harness for the daemon's bindings: a real daemon on port 0 in a temp data directory, event
 * builders, an HTTP poster, an incremental SSE reader and a queued WebSocket client. Waiting is
 * always for a condition (bounded by the test timeout), never for a duration.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { request, type IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { AepEvent } from '../../../common/aep/envelope';
import { startDaemon, type DaemonHandle, type DaemonOptions } from '../../../main/core/daemon';

/** A started daemon plus its temp directory. */
export interface TestDaemon extends DaemonHandle {
  readonly dir: string;
  /** Closes the daemon and removes its directory. */
  stop(): Promise<void>;
}

/** Starts a bare daemon (no product features unless given) on 127.0.0.1:0 in a fresh temp dir. */
export async function startTestDaemon(options: Partial<DaemonOptions> = {}): Promise<TestDaemon> {
  const dir = mkdtempSync(join(tmpdir(), 'aep-companion-test-'));
  const daemon = await startDaemon({
    dataDir: join(dir, 'data'),
    port: 0,
    baseFeatures: [],
    ...options,
  });
  let stopped = false;
  return {
    url: daemon.url,
    port: daemon.port,
    dataDir: daemon.dataDir,
    context: daemon.context,
    get tokens() {
      return daemon.tokens;
    },
    close: () => daemon.close(),
    dir,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await daemon.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

let counter = 0;

/** A valid session-scoped event; `overrides` replace attributes (undefined removes one). */
export function makeEvent(overrides: Record<string, unknown> = {}): AepEvent {
  counter++;
  const event: Record<string, unknown> = {
    aep: '0.1',
    id: `01JTEST${String(counter).padStart(19, '0')}`,
    type: 'progress.status',
    time: '2026-07-03T10:15:04.221Z',
    source: 'aep://test/agent/tester',
    agent: 'tester',
    session: 's1',
    seq: counter,
    epoch: 0,
    ...overrides,
  };
  for (const [k, v] of Object.entries(event)) if (v === undefined) delete event[k];
  return event as AepEvent;
}

/** A numbered run of events in one session, seq 1..n. */
export function sessionEvents(
  session: string,
  n: number,
  extra: Record<string, unknown> = {},
): AepEvent[] {
  return Array.from({ length: n }, (_, i) => makeEvent({ session, seq: i + 1, ...extra }));
}

/** A command event (foreign-emitter: session, no seq). */
export function makeCommand(
  session: string,
  type: string,
  data: Record<string, unknown> = {},
): AepEvent {
  return makeEvent({
    type,
    session,
    seq: undefined,
    epoch: undefined,
    agent: 'operator-console',
    source: 'aep://test/console',
    data,
  });
}

/** An HTTP answer with its parsed JSON body (null when not JSON). */
export interface Reply {
  readonly status: number;
  readonly headers: IncomingMessage['headers'];
  readonly text: string;
  readonly json: unknown;
}

/** Sends one HTTP request and reads the whole answer. */
export function http(
  url: string,
  options: {
    method?: string;
    path: string;
    headers?: Record<string, string | number>;
    body?: string | Buffer;
  },
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${options.path}`,
      { method: options.method ?? 'GET', headers: options.headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            json = null;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    if (options.body !== undefined) req.write(options.body);
    req.end();
  });
}

/** POSTs events (one → application/json, an array → NDJSON) with the given token. */
export function postEvents(
  url: string,
  token: string,
  events: AepEvent | readonly AepEvent[],
  headers: Record<string, string> = {},
): Promise<Reply> {
  const batch = Array.isArray(events);
  const body = batch
    ? (events as AepEvent[]).map((e) => JSON.stringify(e)).join('\n') + '\n'
    : JSON.stringify(events);
  return http(url, {
    method: 'POST',
    path: '/events',
    headers: {
      Authorization: `Bearer ${token}`,
      'AEP-Version': '0.1',
      'Content-Type': batch ? 'application/x-ndjson' : 'application/json',
      ...headers,
    },
    body,
  });
}

/** One parsed SSE message or comment. */
export interface SseMessage {
  readonly event?: string;
  readonly id?: string;
  readonly data?: string;
  readonly comment?: string;
  /** The raw block as received (to check framing). */
  readonly raw: string;
}

/** An incremental SSE reader over a real HTTP response. */
export class SseClient {
  readonly messages: SseMessage[] = [];
  status = 0;
  headers: IncomingMessage['headers'] = {};
  raw = '';
  ended = false;
  body = '';
  private buffer = '';
  private waiters: (() => void)[] = [];
  private req: ReturnType<typeof request> | undefined;

  /** Opens `GET path` and resolves once the response headers arrived. */
  static open(url: string, path: string, headers: Record<string, string> = {}): Promise<SseClient> {
    const client = new SseClient();
    return new Promise((resolve, reject) => {
      client.req = request(
        `${url}${path}`,
        { headers: { Accept: 'text/event-stream', ...headers } },
        (res) => {
          client.status = res.statusCode ?? 0;
          client.headers = res.headers;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => client.feed(chunk));
          res.on('end', () => {
            client.ended = true;
            client.wake();
          });
          res.on('error', () => {
            client.ended = true;
            client.wake();
          });
          res.on('close', () => {
            client.ended = true;
            client.wake();
          });
          resolve(client);
        },
      );
      client.req.on('error', reject);
      client.req.end();
    });
  }

  /** Events (messages with data) received so far, parsed. */
  events(): AepEvent[] {
    return this.messages
      .filter((m) => m.data !== undefined)
      .map((m) => JSON.parse(m.data!) as AepEvent);
  }

  /** Comment lines received so far. */
  comments(): string[] {
    return this.messages.filter((m) => m.comment !== undefined).map((m) => m.comment!);
  }

  /** Resolves when `predicate` holds (checked after every chunk); rejects if the stream ends first. */
  async until(predicate: (c: SseClient) => boolean): Promise<void> {
    while (!predicate(this)) {
      if (this.ended)
        throw new Error(
          `SSE stream ended before the condition held; got ${this.messages.length} messages`,
        );
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Resolves when the server ended the stream. */
  async untilEnded(): Promise<void> {
    while (!this.ended) await new Promise<void>((r) => this.waiters.push(r));
  }

  /** Aborts the request. */
  close(): void {
    this.req?.destroy();
  }

  private feed(chunk: string): void {
    this.raw += chunk;
    if (this.status !== 200) {
      this.body += chunk;
      this.wake();
      return;
    }
    this.buffer += chunk;
    let at: number;
    while ((at = this.buffer.indexOf('\n\n')) !== -1) {
      const block = this.buffer.slice(0, at);
      this.buffer = this.buffer.slice(at + 2);
      const msg: { event?: string; id?: string; data?: string; comment?: string; raw: string } = {
        raw: block,
      };
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) msg.comment = line.slice(1).trim();
        else if (line.startsWith('event: ')) msg.event = line.slice(7);
        else if (line.startsWith('id: ')) msg.id = line.slice(4);
        else if (line.startsWith('data: '))
          msg.data = msg.data === undefined ? line.slice(6) : `${msg.data}\n${line.slice(6)}`;
      }
      this.messages.push(msg);
    }
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** A WebSocket client that queues every frame it receives. */
export class WsClient {
  readonly frames: Record<string, unknown>[] = [];
  readonly texts: string[] = [];
  closed = false;
  closeCode = 0;
  private waiters: (() => void)[] = [];

  private constructor(readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? '' : data.toString();
      this.texts.push(text);
      try {
        this.frames.push(JSON.parse(text) as Record<string, unknown>);
      } catch {
        this.frames.push({ unparsable: text });
      }
      this.wake();
    });
    ws.on('close', (code) => {
      this.closed = true;
      this.closeCode = code;
      this.wake();
    });
    ws.on('error', () => undefined);
  }

  /** Connects to /socket (token in the Authorization header unless `query`). */
  static connect(
    url: string,
    token: string | null,
    options: { headers?: Record<string, string>; query?: string } = {},
  ): Promise<WsClient> {
    const wsUrl = `${url.replace(/^http/, 'ws')}/socket${options.query ?? ''}`;
    const headers: Record<string, string> = {
      ...(token !== null ? { Authorization: `Bearer ${token}` } : {}),
      ...options.headers,
    };
    const ws = new WebSocket(wsUrl, { headers });
    const client = new WsClient(ws);
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(client));
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`upgrade refused with ${res.statusCode}`)),
      );
      ws.once('error', reject);
    });
  }

  /** Connects and completes the hello exchange. */
  static async hello(
    url: string,
    token: string | null,
    hello: Record<string, unknown> = {},
  ): Promise<WsClient> {
    const client = await WsClient.connect(url, token);
    client.send({ type: 'hello', versions: ['0.1'], role: 'consumer', ...hello });
    await client.next((f) => f.type === 'hello');
    return client;
  }

  /** Sends a frame (objects are JSON-encoded). */
  send(frame: unknown): void {
    this.ws.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
  }

  /** Resolves with the first frame (received so far or later) matching `predicate`. */
  async next(
    predicate: (f: Record<string, unknown>) => boolean,
    from = 0,
  ): Promise<Record<string, unknown>> {
    for (;;) {
      const found = this.frames.slice(from).find(predicate);
      if (found) return found;
      if (this.closed)
        throw new Error(
          `socket closed before the frame arrived; frames: ${JSON.stringify(this.frames).slice(0, 2000)}`,
        );
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Resolves once `predicate` holds over the client state. */
  async until(predicate: (c: WsClient) => boolean): Promise<void> {
    while (!predicate(this)) {
      if (this.closed)
        throw new Error(
          `socket closed before the condition held; frames: ${JSON.stringify(this.frames).slice(0, 2000)}`,
        );
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Resolves when the socket closed. */
  async untilClosed(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }

  /** Round-trips a ping so every frame sent before it has been processed by the relay. */
  async sync(): Promise<void> {
    const t = `sync-${Math.random()}`;
    this.send({ type: 'ping', t });
    await this.next((f) => f.type === 'pong' && f.t === t);
  }

  /** Events (frames whose type has a dot) received so far. */
  events(): AepEvent[] {
    return this.frames.filter(
      (f) => typeof f.type === 'string' && f.type.includes('.'),
    ) as unknown as AepEvent[];
  }

  close(): void {
    this.ws.close();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

/** Reads every event the store holds for a session through SSE replay (live=0). */
export async function replaySession(
  url: string,
  token: string,
  session: string,
): Promise<AepEvent[]> {
  const from = encodeURIComponent(JSON.stringify([{ session, epoch: 0, seq: 0 }]));
  const sse = await SseClient.open(url, `/stream?from=${from}&live=0`, {
    Authorization: `Bearer ${token}`,
  });
  await sse.untilEnded();
  return sse.events();
}

/** Reads every stored event through SSE replay-all (live=0). */
export async function replayAll(url: string, token: string): Promise<AepEvent[]> {
  const sse = await SseClient.open(url, `/stream?from=all&live=0`, {
    Authorization: `Bearer ${token}`,
  });
  await sse.untilEnded();
  return sse.events();
}
