/**
 * The direct lane of the listener. A connection's requests are read off the socket here: a simple
 * request to a route that opts in (`HttpRoute.direct`) is answered on the socket itself, without
 * node:http's message objects, streams and per-request promises; at the first request that is not
 * simple, the connection is handed to node:http with every byte not yet answered, and stays there.
 *
 * Simple means: `POST <target> HTTP/1.1`, well-formed header lines within node's 16 KiB head
 * limit, one decimal `Content-Length` within the route's limit, one `Host`, at most one
 * `Authorization`, no `Origin`, `Transfer-Encoding`, `Expect` or `Upgrade`, `Connection` absent,
 * `keep-alive` or `close`, the whole head in the bytes read so far, and the listener's admission
 * (Host, route, token) passed. Anything else, a refusal included, is node:http's to answer and
 * record, with the one rule set of `auth.ts`; this lane only ever takes requests that rule set lets
 * through. A request is answered before the next one on its connection is read (pipelined requests
 * wait in the buffer, as node:http answers them in order too).
 */
import type { Socket } from 'node:net';
import { STATUS_CODES } from 'node:http';

/** The request headers the lane keeps (the ones admission and the handlers read). */
export interface DirectHeaders {
  readonly host?: string;
  readonly authorization?: string;
  readonly 'content-type'?: string;
}

/** A request taken by the lane: its raw target, kept headers and whole body. */
export interface DirectRequest {
  readonly target: string;
  readonly headers: DirectHeaders;
  readonly body: Buffer;
}

/** The reply side of a request taken by the lane; it is also the request's hang-up signal. */
export interface DirectReply {
  /** Sends a JSON reply (no-op once a reply was sent or the client is gone). */
  json(status: number, body: unknown): void;
  /** Whether a reply was sent. */
  readonly sent: boolean;
  /** True when the client hung up before a reply was sent. */
  readonly happened: boolean;
  /** Called once if the client hangs up before a reply is sent. */
  onHangUp(listener: () => void): void;
  /** Called once with whether the reply was written in full (false: the client went first). */
  onSettled(listener: (written: boolean) => void): void;
}

/** What admission gave a request the lane may answer. */
export interface DirectAdmission {
  /** Largest body the route takes here (a larger one goes to node:http, which refuses it). */
  readonly limit: number;
  readonly serve: (request: DirectRequest, reply: DirectReply) => void | Promise<void>;
}

/** Options of the lane. */
export interface DirectLaneOptions {
  /** The route and admission of a request, or null when node:http is to answer it. */
  readonly admit: (target: string, headers: DirectHeaders) => DirectAdmission | null;
  /** Hands a connection to node:http (its unanswered bytes are already back on the socket). */
  readonly toNode: (socket: Socket) => void;
  /** A handler threw or ended without a reply (answered 500 or cut). */
  readonly onFault: (request: string, error: unknown) => void;
  /** Idle time after which a kept-alive connection is closed (node:http's `keepAliveTimeout`). */
  readonly keepAliveMs: number;
}

/** node:http's default limit on a request head. */
export const MAX_HEAD_BYTES = 16 * 1024;
/** How long a body may stall before the connection is cut. */
const BODY_STALL_MS = 60_000;
const HEAD_END = Buffer.from('\r\n\r\n');
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
// A field value: no control character but HTAB (RFC 9110 §5.5).
// eslint-disable-next-line no-control-regex
const FIELD_VALUE = /^[^\x00-\x08\x0a-\x1f\x7f]*$/;
const DECIMAL = /^\d{1,15}$/;
const TARGET = /^[\x21-\x7e]+$/;

/** A parsed simple request head. */
interface Head {
  readonly target: string;
  readonly headers: DirectHeaders;
  readonly length: number;
  readonly close: boolean;
  readonly bodyStart: number;
}

/** The head ending at `end` (its blank line), or null when it is not a simple request's. */
export function parseHead(bytes: Buffer, end: number): Head | null {
  const lines = bytes.toString('latin1', 0, end).split('\r\n');
  const line = lines[0];
  if (!line.startsWith('POST /') || !line.endsWith(' HTTP/1.1')) return null;
  const target = line.slice(5, -9);
  // Visible ASCII only: a URL parser would drop a tab or newline that node:http refuses.
  if (!TARGET.test(target)) return null;
  let host: string | undefined;
  let authorization: string | undefined;
  let contentType: string | undefined;
  let length = -1;
  let close = false;
  for (let i = 1; i < lines.length; i++) {
    const field = lines[i];
    const colon = field.indexOf(':');
    if (colon <= 0) return null;
    const name = field.slice(0, colon);
    if (!TOKEN.test(name)) return null;
    const value = fieldValue(field, colon + 1);
    if (!FIELD_VALUE.test(value)) return null;
    switch (name.toLowerCase()) {
      case 'content-length':
        if (length !== -1 || !DECIMAL.test(value)) return null;
        length = Number(value);
        break;
      case 'host':
        if (host !== undefined) return null;
        host = value;
        break;
      case 'authorization':
        if (authorization !== undefined) return null;
        authorization = value;
        break;
      case 'content-type':
        if (contentType !== undefined) return null;
        contentType = value;
        break;
      case 'connection': {
        const token = value.toLowerCase();
        if (token === 'close') close = true;
        else if (token !== 'keep-alive') return null;
        break;
      }
      case 'origin':
      case 'transfer-encoding':
      case 'expect':
      case 'upgrade':
        return null;
      default:
    }
  }
  if (length === -1 || host === undefined) return null;
  const headers: DirectHeaders = { host, authorization, 'content-type': contentType };
  return { target, headers, length, close, bodyStart: end + 4 };
}

/** A field's value from `start`, without the optional whitespace (SP, HTAB) around it. */
function fieldValue(field: string, start: number): string {
  let from = start;
  let to = field.length;
  while (from < to && (field.charCodeAt(from) === 32 || field.charCodeAt(from) === 9)) from++;
  while (to > from && (field.charCodeAt(to - 1) === 32 || field.charCodeAt(to - 1) === 9)) to--;
  return field.slice(from, to);
}

let dateSecond = -1;
let dateText = '';

/** The `Date` header's value, built once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

/** The last reply built, reused while its second lasts (most replies are the same `{}`). */
let lastReply = { date: '', status: 0, text: '', close: false, bytes: '' };

/** A whole JSON reply: its head and `text`. */
function replyBytes(status: number, text: string, close: boolean): string {
  const date = httpDate();
  const last = lastReply;
  if (last.date === date && last.status === status && last.close === close && last.text === text) return last.bytes;
  const bytes =
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nX-Content-Type-Options: nosniff\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
    `Cache-Control: no-store\r\nDate: ${date}\r\n` +
    (close ? 'Connection: close\r\n\r\n' : 'Connection: keep-alive\r\nKeep-Alive: timeout=5\r\n\r\n') +
    text;
  lastReply = { date, status, text, close, bytes };
  return bytes;
}

/** One request's reply on a lane connection. */
class Reply implements DirectReply {
  private state: 'open' | 'sent' | 'written' | 'lost' = 'open';
  private hungUp = false;
  private hangUps: (() => void)[] | undefined;
  private settled: ((written: boolean) => void)[] | undefined;

  constructor(
    private readonly connection: Connection,
    private readonly close: boolean,
  ) {}

  /** Neither sent nor lost yet. */
  get open(): boolean {
    return this.state === 'open';
  }

  get sent(): boolean {
    return this.state === 'sent' || this.state === 'written';
  }

  get happened(): boolean {
    return this.hungUp;
  }

  json(status: number, body: unknown): void {
    if (this.state !== 'open') return;
    const text = JSON.stringify(body);
    const close = this.close || this.connection.closing();
    this.state = 'sent';
    this.connection.write(replyBytes(status, text, close), close, this);
  }

  onHangUp(listener: () => void): void {
    if (this.state === 'lost') return;
    (this.hangUps ??= []).push(listener);
  }

  onSettled(listener: (written: boolean) => void): void {
    if (this.state === 'written' || this.state === 'lost') {
      listener(this.state === 'written');
      return;
    }
    (this.settled ??= []).push(listener);
  }

  /** The reply reached the socket in full. */
  written(): void {
    if (this.state !== 'sent') return;
    this.state = 'written';
    this.fire(true);
  }

  /** The client went before the reply was written. */
  lost(): void {
    if (this.state === 'written' || this.state === 'lost') return;
    this.hungUp = this.state === 'open';
    this.state = 'lost';
    if (this.hungUp) for (const listener of this.hangUps ?? []) listener();
    this.fire(false);
  }

  private fire(written: boolean): void {
    const listeners = this.settled;
    this.settled = undefined;
    if (listeners !== undefined) for (const listener of listeners) listener(written);
  }
}

/** One connection while the lane has it. */
class Connection {
  /** Bytes read and not yet answered, joined only when they are parsed (no copy per chunk of a large body). */
  private parts: Buffer[] = [];
  private size = 0;
  /** How many buffered bytes the request being read needs before it is looked at again. */
  private wanted = 0;
  private head: Head | null = null;
  private admission: DirectAdmission | null = null;
  private current: Reply | null = null;
  private gone = false;
  private ended = false;
  private handedOff = false;
  /** The socket's idle timeout now (ms, 0 = none): set only when it changes, not per request. */
  private timeoutMs = 0;

  constructor(
    readonly socket: Socket,
    private readonly lane: DirectLane,
  ) {
    socket.on('data', this.onData);
    socket.on('end', this.onEnd);
    socket.on('close', this.onClose);
    socket.on('error', onSocketError);
    socket.on('timeout', this.onTimeout);
  }

  /** Whether a request is being answered or waits in the buffer. */
  get idle(): boolean {
    return this.current === null && this.size === 0;
  }

  closing(): boolean {
    return this.lane.isClosing;
  }

  private readonly onData = (chunk: Buffer): void => {
    this.parts.push(chunk);
    this.size += chunk.length;
    if (this.current === null && this.size >= this.wanted) this.pump();
  };

  /** The buffered bytes as one buffer (null when there are none). */
  private pending(): Buffer | null {
    if (this.size === 0) return null;
    if (this.parts.length > 1) this.parts = [Buffer.concat(this.parts, this.size)];
    return this.parts[0];
  }

  /** Keeps only the bytes after the first `used` of `pending`. */
  private consume(pending: Buffer, used: number): void {
    this.size = pending.length - used;
    this.parts = this.size === 0 ? [] : [pending.subarray(used)];
    this.wanted = 0;
  }

  /**
   * The client ended its side: as node:http does (no half-open HTTP), the request being answered
   * is given up and the connection closed; its close tells the reply it was lost.
   */
  private readonly onEnd = (): void => {
    this.ended = true;
    this.parts = [];
    this.size = 0;
    this.head = null;
    this.socket.end();
  };

  private readonly onClose = (): void => {
    this.gone = true;
    this.lane.forget(this);
    const reply = this.current;
    this.current = null;
    reply?.lost();
  };

  /**
   * The socket was idle for its timeout: cut unless a request is being answered (a handler may
   * hold a reply for minutes). Node arms the timer again at the socket's next read or write.
   */
  private readonly onTimeout = (): void => {
    if (this.current === null) this.socket.destroy();
  };

  /** Sets the socket's idle timeout to `ms` when it is not that already. */
  private idleTimeout(ms: number): void {
    if (this.timeoutMs === ms) return;
    this.timeoutMs = ms;
    this.socket.setTimeout(ms);
  }

  /** Answers what the buffer holds, a request at a time; hands the rest over at the first one not simple. */
  private pump(): void {
    while (this.current === null && !this.handedOff && !this.gone) {
      const pending = this.pending();
      if (pending === null) break;
      if (this.head === null) {
        const end = pending.indexOf(HEAD_END);
        if (end === -1 || end > MAX_HEAD_BYTES) return this.handOff();
        const head = parseHead(pending, end);
        const admission = head === null ? null : this.lane.options.admit(head.target, head.headers);
        if (head === null || admission === null || head.length > admission.limit) return this.handOff();
        this.head = head;
        this.admission = admission;
      }
      const total = this.head.bodyStart + this.head.length;
      if (pending.length < total) {
        this.wanted = total;
        this.idleTimeout(BODY_STALL_MS);
        return;
      }
      const head = this.head;
      const admission = this.admission!;
      this.head = null;
      this.admission = null;
      this.consume(pending, total);
      this.serve(head, admission, pending.subarray(head.bodyStart, total));
    }
    if (this.current !== null || this.handedOff || this.gone) return;
    if (this.ended || this.lane.isClosing) this.socket.end();
    else this.idleTimeout(this.lane.options.keepAliveMs);
  }

  private serve(head: Head, admission: DirectAdmission, body: Buffer): void {
    const reply = new Reply(this, head.close);
    this.current = reply;
    const fail = (error: unknown): void => {
      this.lane.options.onFault(`POST ${head.target.split('?')[0].slice(0, 200)}`, error);
      if (!reply.sent) reply.json(500, { error: 'internal-error', detail: 'the daemon failed to handle this request' });
      else if (this.current === reply) this.socket.destroy();
    };
    // A handler that ended without answering a client still there is a fault; a client that went
    // first is not one.
    const ended = (): void => {
      if (reply.open && !this.gone) fail(new Error('the handler ended without a reply'));
    };
    try {
      const done = admission.serve({ target: head.target, headers: head.headers, body }, reply);
      if (done instanceof Promise) done.then(ended, fail);
      else ended();
    } catch (error) {
      fail(error);
    }
  }

  /** Writes a reply; the next request is read once it reached the socket. */
  write(bytes: string, close: boolean, reply: Reply): void {
    if (this.gone || this.current !== reply) return reply.lost();
    this.socket.write(bytes, (error) => {
      if (error) {
        reply.lost();
        return;
      }
      reply.written();
      if (this.current !== reply) return;
      this.current = null;
      if (close) {
        this.parts = [];
        this.size = 0;
        this.socket.end();
        return;
      }
      this.pump();
    });
  }

  /** Gives the connection to node:http with the bytes not yet answered. */
  private handOff(): void {
    this.handedOff = true;
    this.lane.forget(this);
    const { socket } = this;
    socket.off('data', this.onData);
    socket.off('end', this.onEnd);
    socket.off('close', this.onClose);
    socket.off('error', onSocketError);
    socket.off('timeout', this.onTimeout);
    socket.setTimeout(0);
    socket.pause();
    const pending = this.pending();
    if (pending !== null) socket.unshift(pending);
    this.parts = [];
    this.size = 0;
    this.lane.options.toNode(socket);
    socket.resume();
  }
}

/** Errors end in `close`, which the connection handles. */
function onSocketError(): void {}

/** The lane over the listener's connections. */
export class DirectLane {
  private readonly connections = new Set<Connection>();
  private closingNow = false;

  constructor(readonly options: DirectLaneOptions) {}

  /** Takes a new connection. */
  accept(socket: Socket): void {
    this.connections.add(new Connection(socket, this));
  }

  get isClosing(): boolean {
    return this.closingNow;
  }

  forget(connection: Connection): void {
    this.connections.delete(connection);
  }

  /** Stops keeping connections alive: idle ones close now, busy ones after their reply. */
  closeIdle(): void {
    this.closingNow = true;
    for (const connection of [...this.connections]) if (connection.idle) connection.socket.destroy();
  }

  /** Cuts every connection the lane still has. */
  destroyAll(): void {
    for (const connection of [...this.connections]) connection.socket.destroy();
  }
}
