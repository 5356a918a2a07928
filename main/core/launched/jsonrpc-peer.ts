/**
 * A JSON-RPC 2.0 peer over a LineChannel: requests both ways, interleaved, matched by id;
 * notifications; a bound per request (a peer that never answers is reported, not waited on
 * forever); every pending request rejected when the channel closes. Used for the Codex app-server
 * (its own JSON-RPC dialect: no `jsonrpc` member on the wire); ACP goes through the ACP SDK.
 */
import type { LineChannel, RpcMessage } from './line-channel';

/** An error answer from the peer. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'RpcError';
  }
}

/** The peer did not answer within the bound. */
export class RpcTimeoutError extends Error {
  constructor(
    readonly method: string,
    readonly afterMs: number,
  ) {
    super(`no answer to ${method} within ${afterMs} ms`);
    this.name = 'RpcTimeoutError';
  }
}

/** The channel closed before the answer came. */
export class RpcClosedError extends Error {
  constructor(readonly method: string) {
    super(`the agent went away before answering ${method}`);
    this.name = 'RpcClosedError';
  }
}

/** Handles a request from the peer; a thrown RpcError is sent back as its error. */
export type RequestHandler = (method: string, params: unknown) => unknown;
export type NotificationHandler = (method: string, params: unknown) => void;

/** Options of one request. */
export interface RequestOptions {
  /** Bound in ms; null waits without a bound (a prompt turn). Default: the peer's `defaultTimeoutMs`. */
  readonly timeoutMs?: number | null;
}

interface Pending {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (error: Error) => void;
  readonly timer: NodeJS.Timeout | null;
}

/** Peer options. */
export interface JsonRpcPeerOptions {
  readonly defaultTimeoutMs: number;
  /** Write `"jsonrpc": "2.0"` on every message (true for standard peers; Codex accepts both). */
  readonly withVersion?: boolean;
  /** A response whose id matches nothing pending (logged by the caller). */
  readonly onStrayResponse?: (message: RpcMessage) => void;
}

/** One JSON-RPC connection. */
export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private requestHandler: RequestHandler | null = null;
  private notificationHandler: NotificationHandler | null = null;
  private closed = false;

  constructor(
    private readonly channel: LineChannel,
    private readonly options: JsonRpcPeerOptions,
  ) {
    channel.onMessage((m) => this.receive(m));
    channel.onClose(() => this.close());
  }

  /** Handles the peer's requests (unhandled methods answer -32601). */
  onRequest(handler: RequestHandler): void {
    this.requestHandler = handler;
  }

  onNotification(handler: NotificationHandler): void {
    this.notificationHandler = handler;
  }

  /** Sends a request; resolves with its result, rejects with RpcError, RpcTimeoutError or RpcClosedError. */
  request<T = unknown>(method: string, params?: unknown, options: RequestOptions = {}): Promise<T> {
    if (this.closed) return Promise.reject(new RpcClosedError(method));
    const id = this.nextId++;
    const bound = options.timeoutMs === undefined ? this.options.defaultTimeoutMs : options.timeoutMs;
    return new Promise<T>((resolve, reject) => {
      const timer =
        bound === null
          ? null
          : setTimeout(() => {
              this.pending.delete(String(id));
              reject(new RpcTimeoutError(method, bound));
            }, bound);
      timer?.unref?.();
      this.pending.set(String(id), { method, resolve: resolve as (v: unknown) => void, reject, timer });
      if (!this.channel.send(this.frame({ id, method, ...(params === undefined ? {} : { params }) }))) {
        this.settle(String(id))?.reject(new RpcClosedError(method));
      }
    });
  }

  /** Sends a notification; false when the channel is gone. */
  notify(method: string, params?: unknown): boolean {
    return this.channel.send(this.frame({ method, ...(params === undefined ? {} : { params }) }));
  }

  /** Requests still waiting for an answer. */
  get inFlight(): number {
    return this.pending.size;
  }

  /** Rejects everything pending (RpcClosedError). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const key of [...this.pending.keys()]) {
      const p = this.settle(key);
      p?.reject(new RpcClosedError(p.method));
    }
  }

  private frame(body: RpcMessage): RpcMessage {
    return this.options.withVersion === false ? body : { jsonrpc: '2.0', ...body };
  }

  private settle(key: string): Pending | undefined {
    const p = this.pending.get(key);
    if (!p) return undefined;
    this.pending.delete(key);
    if (p.timer) clearTimeout(p.timer);
    return p;
  }

  private receive(m: RpcMessage): void {
    const method = m['method'];
    if (typeof method === 'string') {
      if ('id' in m && m['id'] !== undefined && m['id'] !== null) void this.answer(m['id'] as string | number, method, m['params']);
      else this.notificationHandler?.(method, m['params']);
      return;
    }
    const p = this.settle(String(m['id']));
    if (!p) {
      this.options.onStrayResponse?.(m);
      return;
    }
    const error = m['error'];
    if (error !== undefined && error !== null) {
      const e = error as { code?: unknown; message?: unknown; data?: unknown };
      p.reject(new RpcError(typeof e.code === 'number' ? e.code : -32603, typeof e.message === 'string' ? e.message : 'error', e.data));
    } else p.resolve(m['result']);
  }

  private async answer(id: string | number, method: string, params: unknown): Promise<void> {
    try {
      if (!this.requestHandler) throw new RpcError(-32601, `method not found: ${method}`);
      const result = await this.requestHandler(method, params);
      this.channel.send(this.frame({ id, result: result ?? null }));
    } catch (error) {
      const e = error instanceof RpcError ? error : new RpcError(-32603, (error as Error)?.message ?? String(error));
      this.channel.send(this.frame({ id, error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } }));
    }
  }
}
