/**
 * The AEP WebSocket consumer (AEP-0003 §3.5, §4, §6.5). It says hello as a consumer, (re)sends
 * every registered subscription with the `from` positions its owner computes at that moment, and
 * reconnects with backoff after any loss. It keeps no event state itself: the store that owns
 * the positions is the one that dedupes, so a resume after a reconnect is exact by construction.
 */
import type { AepEvent, Capture, Position } from '../../../common/aep/envelope';
import type { Capabilities, ErrorFrame, HelloFrame, ReplayExhaustedFrame, RosterFrame } from '../../../common/aep/frames';
import { backoffDelay } from './backoff';

/** Connection phases shown in the status bar and banner. */
export type SocketPhase = 'connecting' | 'open' | 'reconnecting' | 'unauthorized' | 'stopped';

/** Observable connection state. */
export interface SocketStatus {
  readonly phase: SocketPhase;
  /** Reconnect attempts since the last healthy connection. */
  readonly attempt: number;
  /** Epoch ms of the next reconnect attempt while reconnecting. */
  readonly retryAt: number | null;
  readonly lastError: string | null;
  /** Times the socket re-opened after a loss (0 on the first connection). */
  readonly reconnects: number;
}

/** One subscription as the owner describes it; `from` is evaluated at every (re)subscribe. */
export interface SubscriptionSpec {
  readonly filter?: Record<string, unknown>;
  readonly capture?: Capture;
  readonly from: () => readonly Position[] | 'all' | undefined;
}

/** Callbacks from the socket to its owner. */
export interface SocketHandlers {
  event(event: AepEvent): void;
  status(status: SocketStatus): void;
  /** The relay refused a command we sent (cause = command id), or the event itself (id = its id). */
  commandError?(frame: ErrorFrame): void;
  subscribeError?(subId: string, frame: ErrorFrame): void;
  subscribed?(subId: string): void;
  replayExhausted?(frame: ReplayExhaustedFrame): void;
  hello?(frame: HelloFrame): void;
  /** The relay's live roster (AEP-0003 §6.5), answering `askRoster`. */
  roster?(frame: RosterFrame): void;
}

/** Options of an AepSocket. */
export interface SocketOptions {
  /** http(s) origin of the daemon; the socket lives at {origin}/socket. */
  readonly baseUrl: string;
  readonly token: () => string | null;
  readonly instance: string;
  readonly handlers: SocketHandlers;
  /** Injected for tests and the benchmark; defaults to the browser's WebSocket. */
  readonly createSocket?: (url: string) => WebSocket;
}

const PING_EVERY_MS = 25_000;
const SILENCE_LIMIT_MS = 75_000;

/** A self-healing AEP consumer connection. */
export class AepSocket {
  private ws: WebSocket | null = null;
  private helloDone = false;
  private readonly subs = new Map<string, SubscriptionSpec>();
  private status: SocketStatus = { phase: 'connecting', attempt: 0, retryAt: null, lastError: null, reconnects: 0 };
  private retryTimer: ReturnType<typeof setTimeout> | null = null;
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private lastMessageAt = 0;
  private everOpened = false;
  private stopped = false;
  /** Capabilities from the relay's hello (ack window, replay, roster…). */
  serverCapabilities: Capabilities | null = null;

  constructor(private readonly options: SocketOptions) {}

  /** Opens the connection (idempotent). */
  start(): void {
    this.stopped = false;
    if (!this.ws) this.open();
  }

  /** Closes for good: no reconnect. */
  stop(): void {
    this.stopped = true;
    this.clearTimers();
    this.ws?.close(1000, 'console closed');
    this.ws = null;
    this.setStatus({ phase: 'stopped', retryAt: null });
  }

  /** Drops the live connection and reconnects (after a token rotation, or on request). */
  drop(reason = 'reconnecting'): void {
    this.abandon(4000, reason);
  }

  /**
   * Lets go of the current socket at once and schedules the reconnect ourselves: a close
   * handshake with a peer that no longer answers can take long, and nothing waits on it.
   */
  private abandon(code: number, reason: string): void {
    const ws = this.ws;
    if (!ws) return;
    this.ws = null;
    this.helloDone = false;
    this.clearPing();
    try {
      ws.close(code, reason);
    } catch {
      // Already closing.
    }
    if (!this.stopped) this.scheduleReconnect(reason);
  }

  /** Reconnects now instead of waiting for the backoff timer. */
  reconnectNow(): void {
    if (this.stopped || this.status.phase === 'open') return;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    if (!this.ws) this.open();
  }

  /** Registers (or replaces) a subscription and sends it when the connection is ready. */
  subscribe(id: string, spec: SubscriptionSpec): void {
    this.subs.set(id, spec);
    if (this.ready()) this.sendSubscribe(id, spec);
  }

  /** Removes a subscription. */
  unsubscribe(id: string): void {
    if (!this.subs.delete(id)) return;
    if (this.ready()) this.ws!.send(JSON.stringify({ type: 'unsubscribe', id }));
  }

  /** Sends one event (a command). False when there is no ready connection to carry it. */
  send(event: AepEvent): boolean {
    if (!this.ready()) return false;
    this.ws!.send(JSON.stringify(event));
    return true;
  }

  /** Asks the relay for its live roster; false when there is no ready connection. */
  askRoster(id: string): boolean {
    if (!this.ready()) return false;
    this.ws!.send(JSON.stringify({ type: 'roster', id }));
    return true;
  }

  /** Current connection state. */
  current(): SocketStatus {
    return this.status;
  }

  /**
   * Sends a frame of the connection's own (ping, pong) only while the socket is open: a frame can
   * still arrive, and the ping timer still fire, while it closes, and a send then does nothing but
   * log an error in the page.
   */
  private sendIfOpen(frame: Record<string, unknown>): void {
    if (this.ws !== null && this.ws.readyState === WebSocket.OPEN) this.ws.send(JSON.stringify(frame));
  }

  private ready(): boolean {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN && this.helloDone;
  }

  private url(): string {
    const base = this.options.baseUrl.replace(/^http/, 'ws');
    const token = this.options.token();
    // The WS binding is the one place the token may ride in a URL (AEP-0003 §8.1): browsers
    // cannot set headers on a WebSocket handshake.
    return token ? `${base}/socket?access_token=${encodeURIComponent(token)}` : `${base}/socket`;
  }

  private open(): void {
    this.helloDone = false;
    let ws: WebSocket;
    try {
      ws = this.options.createSocket ? this.options.createSocket(this.url()) : new WebSocket(this.url());
    } catch (e) {
      this.scheduleReconnect(e instanceof Error ? e.message : 'could not open the socket');
      return;
    }
    this.ws = ws;
    this.setStatus({ phase: this.everOpened ? 'reconnecting' : 'connecting', retryAt: null });
    ws.onopen = () => {
      this.lastMessageAt = Date.now();
      const hello: HelloFrame = {
        type: 'hello',
        versions: ['0.1'],
        role: 'consumer',
        identity: { agent: 'aep-companion-console', instance: this.options.instance },
        capabilities: { filters: ['attr-match'] },
      };
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (message) => {
      if (ws !== this.ws) return;
      this.lastMessageAt = Date.now();
      let value: unknown;
      try {
        value = JSON.parse(String(message.data));
      } catch {
        return;
      }
      if (!value || typeof value !== 'object') return;
      this.dispatch(value as { type?: unknown });
    };
    ws.onclose = (close) => {
      if (ws !== this.ws) return;
      this.ws = null;
      this.helloDone = false;
      this.clearPing();
      if (this.stopped) return;
      // The handshake is refused with 401 before any frame: the browser reports only a close
      // with no hello seen; say so instead of retrying silently forever.
      const reason = close.reason || (this.everOpened ? 'connection lost' : 'could not reach the daemon');
      this.scheduleReconnect(reason);
    };
    ws.onerror = () => {
      // onclose follows and owns the reconnect.
    };
  }

  private dispatch(value: { type?: unknown }): void {
    const type = typeof value.type === 'string' ? value.type : '';
    if (type.includes('.')) {
      this.options.handlers.event(value as AepEvent);
      return;
    }
    switch (type) {
      case 'hello': {
        const hello = value as HelloFrame;
        this.helloDone = true;
        this.serverCapabilities = hello.capabilities ?? null;
        const reconnected = this.everOpened;
        this.everOpened = true;
        this.setStatus({ phase: 'open', attempt: 0, retryAt: null, lastError: null, reconnects: this.status.reconnects + (reconnected ? 1 : 0) });
        this.startPing();
        this.options.handlers.hello?.(hello);
        for (const [id, spec] of this.subs) this.sendSubscribe(id, spec);
        return;
      }
      case 'subscribed':
        this.options.handlers.subscribed?.(String((value as { id?: unknown }).id));
        return;
      case 'error': {
        const frame = value as ErrorFrame;
        if (frame.cause) this.options.handlers.commandError?.(frame);
        else if (frame.id && this.subs.has(frame.id)) this.options.handlers.subscribeError?.(frame.id, frame);
        // An event we sent that the relay refused as such (invalid-event carries the event id).
        else if (frame.id) this.options.handlers.commandError?.(frame);
        else if (frame.code === 'unauthorized') this.setStatus({ phase: 'unauthorized', lastError: frame.detail ?? 'unauthorized' });
        return;
      }
      case 'replay-exhausted':
        this.options.handlers.replayExhausted?.(value as ReplayExhaustedFrame);
        return;
      case 'roster':
        this.options.handlers.roster?.(value as RosterFrame);
        return;
      case 'ping':
        this.sendIfOpen({ type: 'pong', t: (value as { t?: unknown }).t });
        return;
      default:
        // pong, closing and frame types from later revisions need no action (AEP-0003 §2).
        return;
    }
  }

  private sendSubscribe(id: string, spec: SubscriptionSpec): void {
    const from = spec.from();
    const frame: Record<string, unknown> = { type: 'subscribe', id };
    if (spec.filter) frame.filter = spec.filter;
    if (spec.capture) frame.capture = spec.capture;
    if (from !== undefined) frame.from = from;
    this.ws!.send(JSON.stringify(frame));
  }

  private scheduleReconnect(reason: string): void {
    const attempt = this.status.attempt;
    const delay = backoffDelay(attempt);
    this.setStatus({ phase: this.everOpened ? 'reconnecting' : 'connecting', attempt: attempt + 1, retryAt: Date.now() + delay, lastError: reason });
    this.retryTimer = setTimeout(() => {
      this.retryTimer = null;
      if (!this.stopped) this.open();
    }, delay);
  }

  private startPing(): void {
    this.clearPing();
    this.pingTimer = setInterval(() => {
      if (!this.ws) return;
      if (Date.now() - this.lastMessageAt > SILENCE_LIMIT_MS) {
        this.abandon(4001, 'no traffic from the daemon');
        return;
      }
      this.sendIfOpen({ type: 'ping', t: Date.now() });
    }, PING_EVERY_MS);
  }

  private clearPing(): void {
    if (this.pingTimer) clearInterval(this.pingTimer);
    this.pingTimer = null;
  }

  private clearTimers(): void {
    this.clearPing();
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
  }

  private setStatus(patch: Partial<SocketStatus>): void {
    this.status = { ...this.status, ...patch };
    this.options.handlers.status(this.status);
  }
}
