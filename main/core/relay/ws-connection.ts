/**
 * One WebSocket connection (AEP-0003 §3.5, §4, §6.5; AEP-0004 §4): hello first in each direction,
 * multiplexed subscriptions with in-band refusals, the roster, ping/pong, events from emitters
 * ingested like POSTed ones, commands routed to at most one target, and a `closing` frame with
 * positions on orderly shutdown or when the consumer is too slow.
 */
import type { WebSocket, RawData } from 'ws';
import {
  CAPTURES,
  isAgentScoped,
  isCommandType,
  type AepEvent,
  type Capture,
} from '../../../common/aep/envelope';
import type { Capabilities, ControlCapability, ErrorFrame, Role } from '../../../common/aep/frames';
import { parseFilter } from '../aep/filter';
import { validateEvent } from '../aep/validate-event';
import { createLogger } from '../logger';
import type { Principal } from '../server/route-table';
import type { Claimant } from './claims';
import { corkForTurn } from './corker';
import { joinForTurn } from './turn-join';
import { textFrame } from './ws-frame';
import { SUPPORTED_VERSIONS } from './http-ingest';
import { parseFrom } from './positions';
import type { Relay } from './relay';
import type { TrackedConnection } from './relay-types';
import { Subscription, type DeliveryTransport } from './subscription';

const log = createLogger('relay.ws');

/** Close codes used by the relay. */
const CLOSE_GOING_AWAY = 1001;
const CLOSE_POLICY = 1008;
const CLOSE_TRY_AGAIN = 1013;

/** Pauses reading from an emitter while this many of its events wait for commit. */
const MAX_INFLIGHT = 2_000;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Identity of the relay in its own hello. */
export interface RelayIdentity {
  readonly agent: string;
  readonly instance: string;
}

interface OpenSub {
  readonly sub: Subscription;
  readonly remove: () => void;
}

/** State and behaviour of one WS connection. */
export class WsConnection implements TrackedConnection, Claimant {
  readonly kind = 'ws';
  private helloDone = false;
  private closed = false;
  private role: Role = 'consumer';
  agent: string | undefined;
  instance: string | undefined;
  emits: readonly string[] | undefined;
  private declaredControl: ControlCapability | undefined;
  private readonly subs = new Map<string, OpenSub>();
  private readonly untrack: () => void;
  private inflight = 0;
  private paused = false;
  private alive = true;
  private readonly heartbeat: NodeJS.Timeout;
  private drainWaiters: (() => void)[] = [];
  private drainTimer: NodeJS.Timeout | undefined;
  /** Event frames of this turn, written to the socket as one buffer at the end of the turn. */
  private outbox: Buffer[] = [];
  private outboxBytes = 0;
  private flushQueued = false;

  constructor(
    private readonly ws: WebSocket,
    private readonly principal: Principal,
    private readonly relay: Relay,
    private readonly identity: RelayIdentity,
  ) {
    ws.on('message', (data, isBinary) => this.onMessage(data, isBinary));
    ws.on('close', () => this.onClosed());
    ws.on('error', (e) => log.debug('socket error', { error: e.message }));
    ws.on('pong', () => {
      this.alive = true;
    });
    this.untrack = relay.trackConnection(this);
    // Liveness at the transport level (RFC 6455 ping), so a vanished peer frees its subscriptions.
    this.heartbeat = setInterval(() => {
      if (!this.alive) {
        ws.terminate();
        return;
      }
      this.alive = false;
      try {
        ws.ping();
      } catch {
        // Closing already.
      }
    }, relay.limits.pingIntervalMs * 2);
    this.heartbeat.unref();
  }

  subscriptionCount(): number {
    return this.subs.size;
  }

  control(): ControlCapability | undefined {
    return this.declaredControl;
  }

  deliverCommand(_event: AepEvent, json: string): void {
    this.sendText(json);
  }

  /** Orderly goodbye: `closing` with positions, then the close handshake. */
  shutdown(reason: string): void {
    this.goodbye(reason, CLOSE_GOING_AWAY);
  }

  private goodbye(reason: string, code: number): void {
    if (this.closed) return;
    const delivered: { sub: string; session: string; epoch: number; seq: number }[] = [];
    for (const [id, { sub }] of this.subs)
      for (const p of sub.delivered()) delivered.push({ sub: id, ...p });
    if (this.helloDone) this.send({ type: 'closing', reason, delivered });
    this.closeWith(code, reason);
  }

  private closeWith(code: number, reason: string): void {
    if (this.closed) return;
    this.flushOutbox();
    this.closed = true;
    this.releaseAll();
    try {
      this.ws.close(code, reason.slice(0, 120));
    } catch {
      this.ws.terminate();
    }
    // A peer that never answers the close handshake must not keep the socket.
    setTimeout(() => this.ws.terminate(), 3_000).unref();
  }

  private onClosed(): void {
    this.closed = true;
    this.releaseAll();
    clearInterval(this.heartbeat);
    this.wakeDrain();
  }

  private releaseAll(): void {
    for (const { remove } of this.subs.values()) remove();
    this.subs.clear();
    this.relay.claims.releaseAll(this);
    this.untrack();
  }

  private send(frame: Json | ErrorFrame): void {
    this.sendText(JSON.stringify(frame));
  }

  private sendText(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    // Event frames queued earlier in this turn go first: the consumer sees frames in send order.
    this.flushOutbox();
    corkForTurn((this.ws as unknown as { _socket?: { cork(): void; uncork(): void } })._socket);
    this.ws.send(text);
  }

  /**
   * Queues a pre-built text frame; every frame queued in one turn reaches the socket in one write
   * (one buffer, one syscall) at the end of the turn, instead of one stream write per event. Safe
   * beside ws's own sends because the relay never compresses or fragments (ws writes every frame
   * whole and synchronously) and `sendText` flushes this queue before ws writes anything.
   */
  private sendFrame(frame: Buffer): void {
    if (this.closed || this.ws.readyState !== this.ws.OPEN) return;
    this.outbox.push(frame);
    this.outboxBytes += frame.length;
    if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(this.flushOutbox);
    }
  }

  private readonly flushOutbox = (): void => {
    this.flushQueued = false;
    if (this.outboxBytes === 0) return;
    const frames = this.outbox;
    const bytes = this.outboxBytes;
    this.outbox = [];
    this.outboxBytes = 0;
    if (this.ws.readyState !== this.ws.OPEN) return;
    const socket = (this.ws as unknown as { _socket?: import('node:net').Socket })._socket;
    if (!socket || socket.destroyed) return;
    socket.write(joinForTurn(frames, bytes));
  };

  private error(code: string, detail: string, extra: Json = {}): void {
    this.send({ type: 'error', code, detail, ...extra });
  }

  /** An in-band `unauthorized` refusal, recorded in the audit trail; the connection stays. */
  private refuse(request: string, detail: string, extra: Json): void {
    this.relay.recordRefusal(request, this.principal, detail);
    this.error('unauthorized', detail, extra);
  }

  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    if (!this.helloDone) return this.onFirstFrame(data, isBinary);
    if (isBinary)
      return this.error(
        'binary-unsupported',
        'binary frames are reserved in AEP 0.1; send JSON text frames',
      );
    const text = rawText(data);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (e) {
      return this.error('invalid-frame', `malformed JSON: ${(e as Error).message}`);
    }
    if (!isObject(value) || typeof value.type !== 'string')
      return this.error('invalid-frame', 'a frame is a JSON object with a string type');
    if (value.type.includes('.')) return this.onEvent(value, text);
    switch (value.type) {
      case 'subscribe':
        return this.onSubscribe(value);
      case 'unsubscribe':
        return this.onUnsubscribe(value);
      case 'roster':
        return this.onRoster(value);
      case 'ping':
        return this.send({ type: 'pong', ...('t' in value ? { t: value.t } : {}) });
      default:
        // hello again, pong, closing and unknown frame types are ignored (AEP-0003 §2).
        return;
    }
  }

  private onFirstFrame(data: RawData, isBinary: boolean): void {
    let value: unknown;
    if (!isBinary) {
      try {
        value = JSON.parse(rawText(data));
      } catch {
        value = undefined;
      }
    }
    if (!isObject(value) || value.type !== 'hello') {
      this.error('hello-required', 'the first frame must be hello');
      this.closeWith(CLOSE_POLICY, 'hello-required');
      return;
    }
    const versions = Array.isArray(value.versions) ? value.versions : [];
    const chosen = versions.find((v) => (SUPPORTED_VERSIONS as readonly unknown[]).includes(v));
    if (chosen === undefined) {
      this.send({
        type: 'error',
        code: 'version-unsupported',
        detail: 'no common AEP version',
        versions: [...SUPPORTED_VERSIONS],
      });
      this.closeWith(CLOSE_POLICY, 'version-unsupported');
      return;
    }
    const role = value.role;
    this.role = role === 'emitter' || role === 'both' || role === 'consumer' ? role : 'consumer';
    const identity = isObject(value.identity) ? value.identity : {};
    this.agent = typeof identity.agent === 'string' ? identity.agent : undefined;
    this.instance = typeof identity.instance === 'string' ? identity.instance : undefined;
    const caps: Json = isObject(value.capabilities) ? value.capabilities : {};
    // Declarations are kept verbatim for the roster; malformed ones are simply not declarations.
    this.emits =
      Array.isArray(caps.emits) && caps.emits.every((e) => typeof e === 'string')
        ? (caps.emits as string[])
        : undefined;
    const control = caps.control;
    this.declaredControl =
      isObject(control) &&
      Array.isArray(control.accepts) &&
      control.accepts.every((a) => typeof a === 'string')
        ? (control as unknown as ControlCapability)
        : undefined;
    this.helloDone = true;
    const capabilities: Capabilities = this.relay.capabilities();
    this.send({
      type: 'hello',
      versions: [chosen],
      role: 'both',
      identity: { agent: this.identity.agent, instance: this.identity.instance },
      capabilities,
    });
  }

  private canWatch(): boolean {
    return (
      this.role !== 'emitter' && (this.principal === 'operator' || this.principal === 'anonymous')
    );
  }

  private watchRefusal(): string {
    if (this.role === 'emitter')
      return 'this connection declared the emitter role; subscribe and roster need consumer or both';
    return 'the hook token may only ingest; subscribing and the roster need the operator token';
  }

  private onSubscribe(frame: Json): void {
    const id = frame.id;
    if (typeof id !== 'string' || id === '')
      return this.error('invalid-filter', 'subscribe needs a non-empty string id');
    if (!this.canWatch()) return this.refuse('subscribe', this.watchRefusal(), { id });
    if (this.subs.has(id))
      return this.error('invalid-filter', `subscription ${id} already exists on this connection`, {
        id,
      });
    const filter = parseFilter(frame.filter === undefined ? {} : frame.filter);
    if (!filter.ok) return this.error('invalid-filter', filter.error.message, { id });
    let capture: Capture | undefined;
    if (frame.capture !== undefined) {
      if (!(CAPTURES as readonly unknown[]).includes(frame.capture))
        return this.error('invalid-filter', `capture must be one of ${CAPTURES.join(', ')}`, {
          id,
        });
      capture = frame.capture as Capture;
    }
    let from;
    if (frame.from !== undefined) {
      const parsed = parseFrom(frame.from, this.relay.limits.maxFromPositions);
      if (!parsed.ok) return this.error(parsed.error.code, parsed.error.message, { id });
      from = parsed.value;
    }
    if (this.subs.size >= this.relay.limits.maxSubscriptionsPerConnection) {
      return this.error(
        'limit-exceeded',
        `at most ${this.relay.limits.maxSubscriptionsPerConnection} subscriptions per connection`,
        { id },
      );
    }
    const sub = new Subscription(
      { id, filter: filter.value, capture, from },
      this.transportFor(id),
      this.relay.store,
      this.relay.limits,
    );
    const remove = this.relay.addSubscription(sub);
    this.subs.set(id, { sub, remove });
    this.send({ type: 'subscribed', id });
    sub.start({ live: true }).catch((e: unknown) => {
      log.error('replay failed', { sub: id, error: String(e) });
      this.subs.get(id)?.remove();
      this.subs.delete(id);
      this.error('limit-exceeded', 'the replay failed; subscribe again', { id });
    });
  }

  private onUnsubscribe(frame: Json): void {
    const id = frame.id;
    if (typeof id !== 'string')
      return this.error('invalid-frame', 'unsubscribe needs the subscription id');
    const open = this.subs.get(id);
    if (open) {
      open.remove();
      this.subs.delete(id);
    }
    this.send({ type: 'unsubscribed', id });
  }

  private onRoster(frame: Json): void {
    const id = frame.id;
    if (typeof id !== 'string' || id === '')
      return this.error('invalid-frame', 'roster needs a non-empty string id');
    if (!this.canWatch()) return this.refuse('roster', this.watchRefusal(), { id });
    if (Array.isArray(frame.entries)) return; // a reply shape sent to us: nothing to answer
    this.send({ type: 'roster', id, entries: this.relay.claims.roster() });
  }

  private onEvent(value: Json, text: string): void {
    const valid = validateEvent(value);
    const id = typeof value.id === 'string' ? value.id : undefined;
    if (!valid.ok)
      return this.error('invalid-event', valid.error.message, id !== undefined ? { id } : {});
    const event = valid.value;
    const json = /[\r\n]/.test(text) ? JSON.stringify(event) : text.trim();
    if (isCommandType(event.type)) {
      this.relay
        .routeCommand(
          { event, json },
          { authenticated: this.principal === 'operator', surface: 'ws', label: this.agent },
        )
        .then((routed) => {
          if (!routed.ok)
            this.send({
              type: 'error',
              cause: event.id,
              code: routed.error.code,
              detail: routed.error.message,
            });
        })
        .catch((e: unknown) => {
          log.error('command routing failed', { error: String(e) });
          this.send({
            type: 'error',
            cause: event.id,
            code: 'no-route',
            detail: 'the relay could not store the command',
          });
        });
      return;
    }
    if (this.principal === 'anonymous') {
      return this.refuse(
        'emit',
        'tokenless connections are watch-only; emitting needs the hook or operator token',
        { id: event.id },
      );
    }
    if (
      this.role !== 'consumer' &&
      !isAgentScoped(event.type) &&
      event.session !== undefined &&
      event.seq !== undefined
    ) {
      if (event.type === 'session.ended') this.relay.claims.release(event.session, this);
      else this.relay.claims.claim(event.session, this);
    }
    this.inflight++;
    if (this.inflight >= MAX_INFLIGHT && !this.paused) {
      this.paused = true;
      this.ws.pause();
    }
    this.relay
      .ingest([{ event, json }])
      .catch((e: unknown) => {
        log.error('ingest failed', { error: String(e) });
        this.error('ingest-failed', 'the event could not be committed; send it again', {
          id: event.id,
        });
      })
      .finally(() => {
        this.inflight--;
        if (this.paused && this.inflight < MAX_INFLIGHT / 4) {
          this.paused = false;
          this.ws.resume();
        }
      });
  }

  private transportFor(subId: string): DeliveryTransport {
    return {
      bufferedBytes: () => this.ws.bufferedAmount + this.outboxBytes,
      sendEvent: (rendered) => this.sendFrame((rendered.wsFrame ??= textFrame(rendered.json))),
      sendReplayExhausted: (session, earliest) =>
        this.send({ type: 'replay-exhausted', sub: subId, session, earliest }),
      drained: () => {
        // Hand the queued frames to the socket first, so waiting measures what really is unsent.
        this.flushOutbox();
        return this.closed || this.ws.bufferedAmount < this.relay.limits.softBytes
          ? Promise.resolve()
          : new Promise<void>((resolve) => {
              this.drainWaiters.push(resolve);
              // ws has no drain event of its own; poll the buffered amount only while a replay waits.
              this.drainTimer ??= setInterval(() => this.checkDrain(), 5);
            });
      },
      overflow: (reason) => {
        log.info('disconnecting a slow WS consumer', { reason });
        this.goodbye(reason, CLOSE_TRY_AGAIN);
      },
      isClosed: () => this.closed,
    };
  }

  private checkDrain(): void {
    if (this.drainWaiters.length === 0) return;
    if (this.closed || this.ws.bufferedAmount < this.relay.limits.softBytes / 2) this.wakeDrain();
  }

  private wakeDrain(): void {
    if (this.drainTimer !== undefined) {
      clearInterval(this.drainTimer);
      this.drainTimer = undefined;
    }
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
