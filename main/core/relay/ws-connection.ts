/**
 * One WebSocket connection (AEP-0003 §3.5, §4, §6.5; AEP-0004 §4): hello first in each direction,
 * multiplexed subscriptions with in-band refusals, the roster, ping/pong, events from emitters
 * (`ws-events.ts`), and a `closing` frame with positions on orderly shutdown or when the consumer
 * is too slow. Every frame is parsed with bounded nesting, and every frame handler runs under a
 * guard: a failure is logged, audited and answered with an `error` frame; the connection stays.
 */
import type { WebSocket, RawData } from 'ws';
import { CAPTURES, type AepEvent, type Capture } from '../../../common/aep/envelope';
import type { ControlCapability, ErrorFrame, Role } from '../../../common/aep/frames';
import { parseBoundedJson } from '../aep/bounded-json';
import { MAX_ROUTING_LENGTH } from '../aep/envelope-bounds';
import { parseFilter } from '../aep/filter';
import { createLogger } from '../logger';
import type { Principal } from '../server/route-table';
import type { Claimant } from './claims';
import { textFrame } from './ws-frame';
import { parseHello } from './ws-hello';
import { WsEvents, type WsEventPeer } from './ws-events';
import { WsOutbox, awaited } from './ws-outbox';
import { parseFrom } from './positions';
import type { Relay } from './relay';
import type { TrackedConnection } from './relay-types';
import { Subscription, type DeliveryTransport } from './subscription';

const log = createLogger('relay.ws');

/** Close codes used by the relay. */
const CLOSE_GOING_AWAY = 1001;
const CLOSE_POLICY = 1008;
const CLOSE_TRY_AGAIN = 1013;

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** A frame-level id (subscription, roster request): a bounded non-empty string. */
const isFrameId = (v: unknown): v is string =>
  typeof v === 'string' && v !== '' && v.length <= MAX_ROUTING_LENGTH;

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
export class WsConnection implements TrackedConnection, Claimant, WsEventPeer {
  readonly kind = 'ws';
  private helloDone = false;
  private closed = false;
  private peerRole: Role = 'consumer';
  agent: string | undefined;
  instance: string | undefined;
  emits: readonly string[] | undefined;
  private declaredControl: ControlCapability | undefined;
  private readonly subs = new Map<string, OpenSub>();
  private readonly untrack: () => void;
  private alive = true;
  private readonly heartbeat: NodeJS.Timeout;
  private readonly out: WsOutbox;
  private readonly events: WsEvents;

  constructor(
    private readonly ws: WebSocket,
    readonly principal: Principal,
    private readonly relay: Relay,
    private readonly identity: RelayIdentity,
  ) {
    this.out = new WsOutbox(ws, relay.limits.softBytes, () => this.closed);
    this.events = new WsEvents(this, relay);
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

  role(): Role {
    return this.peerRole;
  }

  deliverCommand(_event: AepEvent, json: string): void {
    this.out.sendText(json);
  }

  /** Orderly goodbye: `closing` with positions, then the close handshake. */
  shutdown(reason: string): void {
    this.goodbye(reason, CLOSE_GOING_AWAY);
  }

  pause(): void {
    this.ws.pause();
  }

  resume(): void {
    this.ws.resume();
  }

  send(frame: Json | ErrorFrame): void {
    this.out.sendText(JSON.stringify(frame));
  }

  error(code: string, detail: string, extra: Json = {}): void {
    this.send({ type: 'error', code, detail, ...extra });
  }

  /** An in-band `unauthorized` refusal, recorded in the audit trail; the connection stays. */
  refuse(request: string, detail: string, extra: Json): void {
    this.relay.recordRefusal(request, this.principal, detail);
    this.error('unauthorized', detail, extra);
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
    this.out.flush();
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
    this.out.wake();
  }

  private releaseAll(): void {
    for (const { remove } of this.subs.values()) remove();
    this.subs.clear();
    this.relay.claims.releaseAll(this);
    this.untrack();
  }

  /** The per-message guard: no frame, however hostile, takes the connection or the process down. */
  private onMessage(data: RawData, isBinary: boolean): void {
    if (this.closed) return;
    try {
      this.handleFrame(data, isBinary);
    } catch (e) {
      this.relay.recordFault('ws', 'frame', e);
      try {
        this.error(
          'internal-error',
          'the relay failed to handle this frame; the connection stays open',
        );
      } catch (sendError) {
        log.error('could not answer a failed frame', { error: String(sendError) });
      }
    }
  }

  private handleFrame(data: RawData, isBinary: boolean): void {
    if (!this.helloDone) return this.onFirstFrame(data, isBinary);
    if (isBinary)
      return this.error(
        'binary-unsupported',
        'binary frames are reserved in AEP 0.1; send JSON text frames',
      );
    const text = rawText(data);
    const parsed = parseBoundedJson(text);
    if (!parsed.ok) return this.error('invalid-frame', parsed.error.message);
    const value = parsed.value;
    if (!isObject(value) || typeof value.type !== 'string')
      return this.error('invalid-frame', 'a frame is a JSON object with a string type');
    if (value.type.includes('.')) return this.events.onEvent(value, text);
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
    const parsed = isBinary ? undefined : parseBoundedJson(rawText(data));
    const result = parseHello(parsed?.ok ? parsed.value : undefined);
    if (!result.ok) {
      this.send(result.refusal.frame);
      this.closeWith(CLOSE_POLICY, result.refusal.code);
      return;
    }
    const { hello } = result;
    this.peerRole = hello.role;
    this.agent = hello.agent;
    this.instance = hello.instance;
    this.emits = hello.emits;
    this.declaredControl = hello.control;
    this.helloDone = true;
    this.send({
      type: 'hello',
      versions: [hello.version],
      role: 'both',
      identity: { agent: this.identity.agent, instance: this.identity.instance },
      capabilities: this.relay.capabilities(),
    });
  }

  private canWatch(): boolean {
    return (
      this.peerRole !== 'emitter' &&
      (this.principal === 'operator' || this.principal === 'anonymous')
    );
  }

  private watchRefusal(): string {
    if (this.peerRole === 'emitter')
      return 'this connection declared the emitter role; subscribe and roster need consumer or both';
    return 'the hook token may only ingest; subscribing and the roster need the operator token';
  }

  private onSubscribe(frame: Json): void {
    const id = frame.id;
    if (!isFrameId(id))
      return this.error(
        'invalid-filter',
        `subscribe needs a non-empty string id of at most ${MAX_ROUTING_LENGTH} characters`,
      );
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
    if (!isFrameId(id)) return this.error('invalid-frame', 'unsubscribe needs the subscription id');
    const open = this.subs.get(id);
    if (open) {
      open.remove();
      this.subs.delete(id);
    }
    this.send({ type: 'unsubscribed', id });
  }

  private onRoster(frame: Json): void {
    const id = frame.id;
    if (!isFrameId(id)) return this.error('invalid-frame', 'roster needs a non-empty string id');
    if (!this.canWatch()) return this.refuse('roster', this.watchRefusal(), { id });
    if (Array.isArray(frame.entries)) return; // a reply shape sent to us: nothing to answer
    this.send({ type: 'roster', id, entries: this.relay.claims.roster() });
  }

  private transportFor(subId: string): DeliveryTransport {
    return {
      bufferedBytes: () => this.out.bufferedBytes(),
      sendEvent: (rendered) =>
        this.out.sendFrame(
          (rendered.wsFrame ??= textFrame(rendered.json)),
          awaited(rendered.head.type),
        ),
      sendReplayExhausted: (session, earliest) =>
        this.send({ type: 'replay-exhausted', sub: subId, session, earliest }),
      drained: () => this.out.drained(),
      overflow: (reason) => {
        log.info('disconnecting a slow WS consumer', { reason });
        this.goodbye(reason, CLOSE_TRY_AGAIN);
      },
      isClosed: () => this.closed,
    };
  }
}

function rawText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}
