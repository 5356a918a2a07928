/**
 * The relay core: admission through the durable store, live fan-out to every subscription,
 * the claim set, control routing (AEP-0004 §4) and in-process emitters. The bindings (HTTP, SSE,
 * WS) are thin adapters over this class.
 */
import { CAPTURES, isCommandType, type AepEvent } from '../../../common/aep/envelope';
import type { Capabilities, CommandErrorCode } from '../../../common/aep/frames';
import { err, ok, type Result } from '../../../common/result';
import { parseBoundedJson } from '../aep/bounded-json';
import type { Filter } from '../aep/filter';
import { validateEvent } from '../aep/validate-event';
import { createLogger } from '../logger';
import type { AuditInput } from '../store/audit-log';
import type { EventStore } from '../store/event-store';
import { ClaimRegistry } from './claims';
import { InProcessEmitter, type EmitterIdentity, type EmitterLink } from './emitter-link';
import { FanoutItem } from './fanout-item';
import { DEFAULT_RELAY_LIMITS, type RelayLimits } from './relay-limits';
import type { CommandSender, IngestItem, TrackedConnection } from './relay-types';
import { LiveWatchers } from './live-watchers';
import { scrubSecrets } from './secret-scrub';
import type { Subscription } from './subscription';

const log = createLogger('relay');
const warnScrubbed = (event: AepEvent): void =>
  log.warn('an ingested event carried a daemon token; it was redacted', { type: event.type });

/** Construction options of the relay. */
export interface RelayOptions {
  readonly store: EventStore;
  readonly limits?: Partial<RelayLimits>;
  /** Appends to the audit trail (control routing outcomes). */
  readonly audit?: (row: AuditInput) => void;
  /**
   * The daemon's own secrets (operator and hook token), read per ingest so a rotation counts at
   * once: any occurrence in an ingested event, from any emitter at any capture level, is replaced
   * by the redaction mark before the event is stored or fanned out.
   */
  readonly secrets?: () => readonly string[];
}

/** Fault or in-band refusal audit rows written per kind and minute at most (the rest are logged). */
const MAX_AUDITS_PER_MINUTE = 20;

/** The discovery document (AEP-0003 §3.4). */
export interface DiscoveryDocument {
  readonly aep: readonly string[];
  readonly role: 'collector';
  readonly endpoints: { readonly events: string; readonly stream: string; readonly socket: string };
  readonly capabilities: Capabilities;
}

/** A refused command: the code of the connection-scoped error frame and its detail. */
export interface CommandRefusal {
  readonly code: CommandErrorCode;
  readonly message: string;
}

/** The AEP relay of one daemon. */
export class Relay {
  readonly limits: RelayLimits;
  readonly claims = new ClaimRegistry();
  private readonly subscriptions = new Set<Subscription>();
  private readonly connections = new Set<TrackedConnection>();
  private readonly links = new Set<InProcessEmitter>();
  private readonly admittedListeners = new Set<(events: readonly AepEvent[]) => void>();
  private readonly watchers = new LiveWatchers();
  private shuttingDown = false;
  private readonly auditBudget = new Map<string, { minute: number; used: number }>();

  constructor(private readonly options: RelayOptions) {
    this.limits = { ...DEFAULT_RELAY_LIMITS, ...options.limits };
  }

  /** The store behind the relay. */
  get store(): EventStore {
    return this.options.store;
  }

  /** The capabilities actually implemented (hello and discovery share them). */
  capabilities(): Capabilities {
    return {
      filters: ['attr-match'],
      replay: { buffer: this.options.store.maxEventsPerSession, all: true },
      capture: [...CAPTURES],
      control: { accepts: [] },
      roster: {},
      experimental: {},
    };
  }

  /** The discovery document served at GET /events and /.well-known/aep. */
  discovery(): DiscoveryDocument {
    return {
      aep: ['0.1'],
      role: 'collector',
      endpoints: { events: '/events', stream: '/stream', socket: '/socket' },
      capabilities: this.capabilities(),
    };
  }

  /**
   * Admits validated events durably, then fans them out as received (a duplicate is not stored
   * twice but is still forwarded, AEP-0003 §5). Resolves after COMMIT with the admission flags;
   * rejects with the store's error when the commit failed (nothing was fanned out then).
   */
  ingest(received: readonly IngestItem[]): Promise<boolean[]> {
    return this.admitThenPublish(received, (admitted) => admitted);
  }

  /**
   * `ingest`, resolving with `result` of the admission flags. Not an async function: the hook path
   * ingests per call, and a chain of one link fewer is measurably cheaper there; a throw still
   * comes as a rejection.
   */
  private admitThenPublish<T>(received: readonly IngestItem[], result: (admitted: boolean[]) => T): Promise<T> {
    let items: readonly IngestItem[];
    try {
      const secrets = this.options.secrets?.();
      items =
        secrets === undefined
          ? received
          : scrubSecrets(received, secrets, warnScrubbed);
      for (const { event } of items)
        if (event.session !== undefined) this.claims.noteSource(event.session, event.source);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.options.store.admit(items).then((admitted) => {
      if (this.admittedListeners.size > 0) this.notifyAdmitted(items, admitted);
      this.publish(items);
      return result(admitted);
    });
  }

  /**
   * Calls `listener` after each commit of `ingest` with the events it newly admitted (duplicates and
   * routed commands excluded); returns its removal. Listeners run synchronously on the ingest path:
   * keep them cheap (batch real work). A throwing listener is logged and never fails the ingest.
   */
  onAdmitted(listener: (events: readonly AepEvent[]) => void): () => void {
    this.admittedListeners.add(listener);
    return () => {
      this.admittedListeners.delete(listener);
    };
  }

  private notifyAdmitted(items: readonly IngestItem[], admitted: readonly boolean[]): void {
    const events: AepEvent[] = [];
    for (let i = 0; i < items.length; i++) if (admitted[i]) events.push(items[i].event);
    if (events.length === 0) return;
    for (const listener of this.admittedListeners) {
      try {
        listener(events);
      } catch (error) {
        log.error('admission listener failed', { error: String(error) });
      }
    }
  }

  /**
   * Calls `onEvent` for every live event matching `filter` (in process, synchronously, no replay);
   * returns the removal. For the host's own watchers (notifications); consumers use a binding.
   */
  watch(filter: Filter, onEvent: (event: AepEvent) => void): () => void {
    return this.watchers.add(filter, onEvent);
  }

  /** Live fan-out only (no storage). */
  publish(items: readonly IngestItem[]): void {
    if (!this.watchers.empty) for (const { event } of items) this.watchers.offer(event);
    if (this.subscriptions.size === 0) return;
    for (const { event, json } of items) {
      const item = new FanoutItem(event, json);
      for (const sub of this.subscriptions) sub.offer(item);
    }
  }

  /** Registers a subscription for fan-out; returns its removal. */
  addSubscription(sub: Subscription): () => void {
    this.subscriptions.add(sub);
    return () => {
      sub.close();
      this.subscriptions.delete(sub);
    };
  }

  /** Registers a connection so shutdown can end it in order; returns its removal. */
  trackConnection(conn: TrackedConnection): () => void {
    if (this.shuttingDown) {
      conn.shutdown('shutting-down');
      return () => undefined;
    }
    this.connections.add(conn);
    return () => {
      this.connections.delete(conn);
    };
  }

  /** Live connection and subscription counts. */
  counts(): { connections: number; subscribers: number; emitters: number } {
    let subscribers = 0;
    for (const c of this.connections) subscribers += c.subscriptionCount();
    return { connections: this.connections.size, subscribers, emitters: this.links.size };
  }

  /** Attaches an in-process emitter (same declaration, roster and control powers as a WS emitter). */
  attachEmitter(identity: EmitterIdentity): EmitterLink {
    const link = new InProcessEmitter(
      identity,
      this.claims,
      (items) => this.admitThenPublish(items, () => undefined),
      (l) => this.links.delete(l),
    );
    this.links.add(link);
    return link;
  }

  /**
   * Routes a command to at most one target (AEP-0004 §4): refuses unauthenticated senders,
   * unknown routes, ambiguous claims and types outside the target's declared `accepts`; a refusal
   * never enters session history. A routed command is stored in its session's history, handed to
   * the target byte-identically, and fanned out to subscribers.
   */
  async routeCommand(
    item: IngestItem,
    sender: CommandSender,
  ): Promise<Result<void, CommandErrorCode>> {
    const { event } = item;
    const refuse = (code: CommandErrorCode, message: string): Result<void, CommandErrorCode> => {
      this.auditCommand(event, sender, 'refused', { code, detail: message });
      log.info('command refused', { type: event.type, session: event.session, code });
      return err(code, message);
    };
    if (!sender.authenticated)
      return refuse(
        'unauthorized',
        'control commands need an authenticated operator connection (AEP-0004 §4.1)',
      );
    const session = event.session;
    if (session === undefined) return refuse('no-route', 'the command names no session');
    const claimants = this.claims.claimants(session);
    if (claimants.length === 0)
      return refuse('no-route', `no connected emitter owns session ${session}`);
    if (claimants.length > 1)
      return refuse('ambiguous', `${claimants.length} live emitters claim session ${session}`);
    const target = claimants[0];
    const accepts = target.control(session)?.accepts ?? [];
    if (!accepts.includes(event.type)) {
      return refuse(
        'unsupported',
        `the target of session ${session} does not accept ${event.type} (accepts: ${accepts.join(', ') || 'nothing'})`,
      );
    }
    await this.options.store.admit([item]);
    target.deliverCommand(event, item.json);
    this.publish([item]);
    this.auditCommand(event, sender, 'ok', { target: target.agent ?? null });
    return ok(undefined);
  }

  /**
   * Sends a command from inside the daemon (tray, CLI via /api): the same gate and path as a
   * command arriving on an operator WS connection.
   */
  async sendCommand(
    command: AepEvent | string,
    sender: Omit<CommandSender, 'authenticated'>,
  ): Promise<Result<void, CommandErrorCode | 'invalid-event'>> {
    let event: AepEvent;
    let json: string;
    if (typeof command === 'string') {
      const parsed = parseBoundedJson(command);
      if (!parsed.ok) return err('invalid-event', parsed.error.message);
      const valid = validateEvent(parsed.value);
      if (!valid.ok) return valid;
      event = valid.value;
      json = command;
    } else {
      const valid = validateEvent(command);
      if (!valid.ok) return valid;
      event = valid.value;
      json = JSON.stringify(command);
    }
    if (!isCommandType(event.type))
      return err('invalid-event', `${event.type} is not a command type`);
    return this.routeCommand({ event, json }, { ...sender, authenticated: true });
  }

  /**
   * Orderly shutdown: every WS connection gets a `closing` frame with its positions and every SSE
   * stream ends; in-process links are closed. New connections are refused from now on.
   */
  shutdown(reason = 'shutting-down'): void {
    this.shuttingDown = true;
    for (const conn of [...this.connections]) {
      try {
        conn.shutdown(reason);
      } catch (e) {
        log.warn('connection shutdown failed', { error: String(e) });
      }
    }
    this.connections.clear();
    for (const link of [...this.links]) link.close();
    for (const sub of this.subscriptions) sub.close();
    this.subscriptions.clear();
    this.watchers.clear();
  }

  /** True once shutdown began. */
  get closing(): boolean {
    return this.shuttingDown;
  }

  /**
   * Records a handler failure on a binding (the per-message guard): logged loudly every time,
   * audited up to a bound per minute so a hostile peer cannot grow the audit trail with faults.
   */
  recordFault(surface: 'ws' | 'api', request: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    log.error('handler failed', {
      surface,
      request,
      error: error instanceof Error ? (error.stack ?? message) : message,
    });
    if (!this.options.audit) return;
    if (!this.withinAuditBudget('fault')) return;
    try {
      this.options.audit({
        actor: 'daemon',
        surface,
        action: 'handler.failed',
        session: null,
        commandId: null,
        outcome: 'error',
        detail: { request, error: message.slice(0, 500) },
      });
    } catch (e) {
      log.warn('audit append failed', { error: String(e) });
    }
  }

  /** Records an in-band authorization refusal on a WS connection (subscribe, roster, emit). */
  recordRefusal(request: string, principal: string, reason: string): void {
    if (!this.options.audit) return;
    // Bounded per request kind and minute: a peer repeating a refused frame cannot grow the trail.
    if (!this.withinAuditBudget(`refusal:${request}`)) return;
    try {
      this.options.audit({
        actor: principal,
        surface: 'ws',
        action: 'auth.refused',
        session: null,
        commandId: null,
        outcome: 'refused',
        detail: { request, code: 'unauthorized', reason },
      });
    } catch (e) {
      log.warn('audit append failed', { error: String(e) });
    }
  }

  /** True while `kind` has audit rows left this minute (the rest are only logged). */
  private withinAuditBudget(kind: string): boolean {
    const minute = Math.floor(Date.now() / 60_000);
    let budget = this.auditBudget.get(kind);
    if (budget === undefined || budget.minute !== minute)
      this.auditBudget.set(kind, (budget = { minute, used: 0 }));
    if (++budget.used <= MAX_AUDITS_PER_MINUTE) return true;
    if (budget.used === MAX_AUDITS_PER_MINUTE + 1)
      log.warn('audit rows for this kind are suppressed until the next minute', { kind });
    return false;
  }

  private auditCommand(
    event: AepEvent,
    sender: CommandSender,
    outcome: string,
    detail: Record<string, unknown>,
  ): void {
    if (!this.options.audit) return;
    try {
      this.options.audit({
        actor: event.agent,
        surface: sender.surface,
        action: outcome === 'ok' ? 'control.routed' : 'control.refused',
        session: event.session ?? null,
        commandId: event.id,
        outcome,
        detail: { type: event.type, ...detail },
      });
    } catch (e) {
      log.warn('audit append failed', { error: String(e) });
    }
  }
}
