/**
 * A client of the Cline hub (the CLI's local WebSocket daemon, protocol v1, as recorded from 3.0.65
 * in test/fixtures/cline/frames-*.jsonl): connects with the `cline-hub-auth.<token>` subprotocol,
 * sends `client.register`, then `stream.subscribe` with `sinceSequence` so a reconnect replays what
 * it missed and nothing twice. Commands are request/reply by `requestId`. Any loss of the hub (absent,
 * refused token, closed, wrong protocol) is reported as a status with the reason, and retried with
 * exponential backoff; the caller degrades to hooks only meanwhile.
 */
import WebSocket from 'ws';
import type { Logger } from '../../../logger';
import { readDiscovery, type HubDiscovery } from './discovery';

/** One hub event envelope. */
export interface HubEvent {
  readonly event: string;
  readonly eventId: string;
  readonly sessionId?: string;
  readonly timestamp?: number;
  readonly sequence: number;
  readonly payload: Readonly<Record<string, unknown>>;
}

/** A hub reply: ok with a payload, or an error with its code. */
export type HubReply =
  | { readonly ok: true; readonly payload: Readonly<Record<string, unknown>> }
  | { readonly ok: false; readonly code: string; readonly message: string };

/** The client's view of the hub. */
export type HubState = 'stopped' | 'connecting' | 'connected' | 'unavailable';

export interface HubStatus {
  readonly state: HubState;
  /** Why the hub is not usable (absent, refused, closed, version mismatch), in words. */
  readonly reason: string | null;
  readonly url: string | null;
}

export interface HubClientOptions {
  /** The discovery file path (from the installer host: `~/.cline/data/locks/hub/production.json`). */
  readonly discoveryPath: string;
  readonly clientId: string;
  readonly logger: Logger;
  readonly onEvent: (event: HubEvent) => void;
  readonly onStatus?: (status: HubStatus) => void;
  /** First retry delay and its cap (ms); doubled per failed attempt. */
  readonly backoffMs?: { readonly initial: number; readonly max: number };
  /** How long a command may wait for its reply. */
  readonly replyTimeoutMs?: number;
}

const DEFAULT_BACKOFF = { initial: 500, max: 30_000 };

interface Pending {
  readonly resolve: (reply: HubReply) => void;
  readonly timer: NodeJS.Timeout;
}

/** The hub client: one connection at a time, reconnecting until stopped. */
export class HubClient {
  private socket: WebSocket | null = null;
  private state: HubStatus = { state: 'stopped', reason: null, url: null };
  private readonly pending = new Map<string, Pending>();
  private nextRequest = 0;
  private lastSequence: number | null = null;
  private hubId: string | null = null;
  private retryMs: number;
  private retryTimer: NodeJS.Timeout | null = null;
  private running = false;

  constructor(private readonly options: HubClientOptions) {
    this.retryMs = (options.backoffMs ?? DEFAULT_BACKOFF).initial;
  }

  /** The current status. */
  get status(): HubStatus {
    return this.state;
  }

  /** The highest event sequence seen (resumed from on reconnect). */
  get sequence(): number | null {
    return this.lastSequence;
  }

  /** Starts connecting (idempotent). */
  start(): void {
    if (this.running) return;
    this.running = true;
    void this.connect();
  }

  /** Stops: closes the connection, fails pending commands, no more retries. */
  stop(): void {
    this.running = false;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    const socket = this.socket;
    this.socket = null;
    socket?.removeAllListeners();
    socket?.on('error', () => undefined);
    socket?.terminate();
    this.failPending('the hub tap stopped');
    this.setStatus({ state: 'stopped', reason: null, url: null });
  }

  /** Sends a command and resolves with its reply (an error reply when the hub is not connected). */
  request(
    command: string,
    payload: Record<string, unknown>,
    sessionId?: string,
  ): Promise<HubReply> {
    const socket = this.socket;
    if (!socket || this.state.state !== 'connected' || socket.readyState !== WebSocket.OPEN)
      return Promise.resolve({
        ok: false,
        code: 'hub_unavailable',
        message: this.state.reason ?? 'the Cline hub is not connected',
      });
    return this.send(socket, command, payload, sessionId);
  }

  private send(
    socket: WebSocket,
    command: string,
    payload: Record<string, unknown>,
    sessionId?: string,
  ): Promise<HubReply> {
    const requestId = `aep_${++this.nextRequest}`;
    const envelope = {
      version: 'v1',
      command,
      requestId,
      clientId: this.options.clientId,
      ...(sessionId === undefined ? {} : { sessionId }),
      payload,
    };
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.pending.delete(requestId);
        resolve({
          ok: false,
          code: 'timeout',
          message: `no reply to ${command} within ${this.options.replyTimeoutMs ?? 5000} ms`,
        });
      }, this.options.replyTimeoutMs ?? 5000);
      this.pending.set(requestId, { resolve, timer });
      socket.send(JSON.stringify({ kind: 'command', envelope }), (error) => {
        if (!error) return;
        clearTimeout(timer);
        this.pending.delete(requestId);
        resolve({ ok: false, code: 'send_failed', message: error.message });
      });
    });
  }

  private async connect(): Promise<void> {
    if (!this.running) return;
    const discovery = await readDiscovery(this.options.discoveryPath);
    if (!this.running) return;
    if (!discovery.ok) return this.unavailable(discovery.error.message, null);
    const hub: HubDiscovery = discovery.value;
    // A different hub (restarted) numbers its events afresh: resume only within one hub.
    if (hub.hubId !== this.hubId) {
      this.lastSequence = null;
      this.hubId = hub.hubId;
    }
    this.setStatus({ state: 'connecting', reason: null, url: hub.url });
    const socket = new WebSocket(hub.url, [`cline-hub-auth.${hub.authToken}`], {
      handshakeTimeout: 5000,
    });
    this.socket = socket;
    let registered = false;
    socket.on('message', (data) => this.onMessage(String(data)));
    socket.on('error', () => undefined);
    socket.on('close', (code) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.failPending('the Cline hub connection closed');
      const reason = registered
        ? `the Cline hub at ${hub.url} closed the connection (${code})`
        : `the Cline hub at ${hub.url} refused the connection (bad or stale auth token, or not a hub)`;
      this.unavailable(reason, hub.url);
    });
    socket.on('open', () => {
      void this.send(socket, 'client.register', {
        clientId: this.options.clientId,
        clientType: 'aep-companion',
        displayName: 'AEP Companion',
        transport: 'native',
        actorKind: 'client',
        capabilities: [{ name: 'approval.respond' }],
      }).then((reply) => {
        if (this.socket !== socket) return;
        if (!reply.ok) {
          socket.close();
          return this.unavailable(
            `the Cline hub refused client.register (${reply.code}: ${reply.message})`,
            hub.url,
          );
        }
        registered = true;
        const since = this.lastSequence === null ? {} : { sinceSequence: this.lastSequence };
        socket.send(
          JSON.stringify({ kind: 'stream.subscribe', clientId: this.options.clientId, ...since }),
        );
        this.retryMs = (this.options.backoffMs ?? DEFAULT_BACKOFF).initial;
        this.setStatus({ state: 'connected', reason: null, url: hub.url });
      });
    });
  }

  private onMessage(text: string): void {
    let frame: { kind?: unknown; envelope?: Record<string, unknown> };
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      this.options.logger.warn('Cline hub sent a frame that is not JSON; skipped', {
        chars: text.length,
      });
      return;
    }
    const env = frame.envelope;
    if (typeof env !== 'object' || env === null) return;
    if (frame.kind === 'reply') {
      const id = String(env.requestId ?? '');
      const pending = this.pending.get(id);
      if (!pending) return;
      this.pending.delete(id);
      clearTimeout(pending.timer);
      const error = (env.error ?? {}) as Record<string, unknown>;
      pending.resolve(
        env.ok === true
          ? { ok: true, payload: (env.payload ?? {}) as Record<string, unknown> }
          : {
              ok: false,
              code: String(error.code ?? 'error'),
              message: String(error.message ?? 'the hub refused the command'),
            },
      );
      return;
    }
    if (frame.kind !== 'event' || typeof env.event !== 'string' || typeof env.sequence !== 'number')
      return;
    // Replay after a reconnect may overlap what was seen: each sequence is handled once.
    if (this.lastSequence !== null && env.sequence <= this.lastSequence) return;
    this.lastSequence = env.sequence;
    try {
      this.options.onEvent(env as unknown as HubEvent);
    } catch (error) {
      this.options.logger.error('handling a Cline hub event failed', {
        event: env.event,
        error: String(error),
      });
    }
  }

  private unavailable(reason: string, url: string | null): void {
    if (!this.running) return;
    if (this.state.state !== 'unavailable' || this.state.reason !== reason)
      this.options.logger.info('Cline hub unavailable: sessions are observed through hooks only', {
        reason,
        retryInMs: this.retryMs,
      });
    this.setStatus({ state: 'unavailable', reason, url });
    const max = (this.options.backoffMs ?? DEFAULT_BACKOFF).max;
    const delay = this.retryMs;
    this.retryMs = Math.min(max, this.retryMs * 2);
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      void this.connect();
    }, delay);
    this.retryTimer.unref?.();
  }

  private failPending(message: string): void {
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.resolve({ ok: false, code: 'hub_unavailable', message });
      this.pending.delete(id);
    }
  }

  private setStatus(status: HubStatus): void {
    const changed = status.state !== this.state.state || status.reason !== this.state.reason;
    this.state = status;
    if (changed) {
      if (status.state === 'connected')
        this.options.logger.info('Cline hub connected: steering goes through the hub', {
          url: status.url,
        });
      this.options.onStatus?.(status);
    }
  }
}
