/**
 * The OpenHands bridge: attached to one agent server, it checks `/server_info` (a version it does
 * not know is refused with the reason), lists the conversations (polled, so new ones join and
 * deleted ones end), follows each one (watch.ts) and maps its events (mapping.ts) into one AEP
 * session per conversation, vendor `openhands`. Its status is visible (`/api/openhands`, doctor, an
 * `x.openhands.server.status` event in each live session); a server that is down is retried with
 * backoff, a refused key stops every retry until the operator connects again.
 */
import type { OpenHandsLinkState, OpenHandsState } from '../../../../common/openhands';
import type { AepEvent } from '../../../../common/aep/envelope';
import type { Logger } from '../../logger';
import type { OpenHandsCursors } from '../../store/openhands-cursors';
import type { VendorEmitter } from '../../steering/vendor-emitter';
import { mapped } from '../event-builders';
import type { MappedEvent, MappingContext } from '../types';
import { OpenHandsError, OpenHandsRest } from './client';
import { mapEvent, newConversationMapping, type ConversationMapping } from './mapping';
import type { OpenHandsConnection } from './settings';
import { ConversationWatch, type Cursor } from './watch';
import { versionRefusal, type OhEvent } from './wire';

export interface BridgeDeps {
  readonly emitter: VendorEmitter;
  readonly cursors: OpenHandsCursors;
  readonly logger: Logger;
  readonly context: () => MappingContext;
  /** The verbs a conversation declares now (empty when it cannot be steered). */
  readonly verbs: (conversation: string) => readonly string[];
  /** Sees every event of a conversation once it is mapped; returns stamped followers (the control's settlements). */
  readonly observed: (conversation: string, event: OhEvent, mapping: ConversationMapping) => AepEvent[];
  /**
   * The session registry as the bridge reports to it (sessions/source.ts, wired by the feature): a
   * conversation the bridge follows is sighted and owned by it (`true`), and let go when it ends or
   * the bridge detaches (`false`).
   */
  readonly controls?: (conversation: string, yes: boolean) => void;
  readonly pollMs?: number;
  readonly backoffMs?: { readonly initial: number; readonly max: number };
}

/** One conversation being followed. */
export interface Watched {
  readonly id: string;
  readonly mapping: ConversationMapping;
  readonly watch: ConversationWatch;
  started: boolean;
  ended: boolean;
}

const DEFAULT_POLL_MS = 15_000;
const DEFAULT_BACKOFF = { initial: 1_000, max: 30_000 };

export class OpenHandsBridge {
  private conn: OpenHandsConnection | null = null;
  rest: OpenHandsRest | null = null;
  private link: { state: OpenHandsLinkState; reason: string | null; version: string | null } = { state: 'disconnected', reason: null, version: null };
  readonly watched = new Map<string, Watched>();
  private timer: NodeJS.Timeout | null = null;
  private retryMs: number;
  private generation = 0;

  constructor(private readonly deps: BridgeDeps) {
    this.retryMs = (deps.backoffMs ?? DEFAULT_BACKOFF).initial;
  }

  get connection(): OpenHandsConnection | null {
    return this.conn;
  }

  state(): OpenHandsState {
    return { url: this.conn?.url ?? null, instruct: this.conn?.instruct ?? false, ...this.link, conversations: [...this.watched.values()].filter((w) => !w.ended).length };
  }

  /** Attaches to a server (detaching from any other first). */
  connect(conn: OpenHandsConnection): void {
    this.disconnect();
    this.conn = conn;
    this.rest = new OpenHandsRest(conn.url, conn.key);
    this.setLink('connecting', null);
    void this.poll(this.generation);
  }

  /** Detaches: every watch stops; the sessions stay as they are (the conversations still exist). */
  disconnect(): void {
    this.generation += 1;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    for (const w of this.watched.values()) w.watch.stop();
    const live = [...this.watched.values()].filter((w) => !w.ended);
    this.watched.clear();
    for (const w of live) {
      this.deps.emitter.release(w.id);
      this.deps.controls?.(w.id, false);
    }
    this.conn = null;
    this.rest = null;
    this.link = { state: 'disconnected', reason: null, version: null };
  }

  /** Re-declares every live conversation's verbs (kill switch flipped, link changed). */
  redeclare(): void {
    for (const w of this.watched.values()) if (!w.ended) this.declare(w.id);
  }

  /** Polls now (tests; the timer does it every pollMs). */
  async pollNow(): Promise<void> {
    await this.poll(this.generation, false);
  }

  /** Resolves once every watched conversation delivered what it received. */
  async idle(): Promise<void> {
    await Promise.all([...this.watched.values()].map((w) => w.watch.idle()));
  }

  /** Stamps and sends mapped events for a conversation. */
  send(conversation: string, events: readonly MappedEvent[]): Promise<void> {
    return this.deps.emitter.send(this.deps.emitter.stampMapped(conversation, events));
  }

  private declare(id: string): void {
    const verbs = this.link.state === 'connected' ? this.deps.verbs(id) : [];
    this.deps.emitter.declare(id, { instruct: verbs.length > 0, permissions: false }, verbs);
  }

  private setLink(state: OpenHandsLinkState, reason: string | null, version = this.link.version): void {
    const changed = this.link.state !== state || this.link.reason !== reason;
    this.link = { state, reason, version };
    if (!changed) return;
    if (state === 'connected') this.deps.logger.info('OpenHands agent server connected', { url: this.conn?.url, version });
    else if (state !== 'connecting') this.deps.logger.warn('OpenHands agent server not usable', { url: this.conn?.url, state, reason });
    this.redeclare();
    for (const w of this.watched.values()) {
      if (w.ended || !w.started || state === 'connecting') continue;
      const event = mapped('x.openhands.server.status', this.deps.context(), { state, ...(reason ? { reason } : {}) }, { run: w.mapping.run, severity: state === 'connected' ? undefined : 'warning' });
      void this.send(w.id, [event]).catch(() => undefined);
    }
  }

  private schedule(gen: number, ms: number): void {
    if (gen !== this.generation) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(gen), ms);
    this.timer.unref?.();
  }

  private async poll(gen: number, reschedule = true): Promise<void> {
    const rest = this.rest;
    const conn = this.conn;
    if (!rest || !conn || gen !== this.generation || this.link.state === 'unauthorized' || this.link.state === 'unsupported') return;
    const backoff = this.deps.backoffMs ?? DEFAULT_BACKOFF;
    try {
      const info = await rest.serverInfo();
      const refusal = versionRefusal(info.version);
      if (gen !== this.generation) return;
      if (refusal !== null) return this.setLink('unsupported', refusal, info.version);
      const conversations = await rest.conversations();
      if (gen !== this.generation) return;
      this.retryMs = backoff.initial;
      this.setLink('connected', null, info.version);
      const present = new Set(conversations.map((c) => c.id));
      for (const c of conversations) this.watch(c.id, c.title ?? null);
      for (const w of [...this.watched.values()]) if (!w.ended && !present.has(w.id)) await this.gone(w, 'the conversation was deleted on the agent server');
      if (reschedule) this.schedule(gen, this.deps.pollMs ?? DEFAULT_POLL_MS);
    } catch (error) {
      if (gen !== this.generation) return;
      if (error instanceof OpenHandsError && error.status === 401) return this.unauthorized(error.message);
      this.setLink('unreachable', (error as Error).message);
      const wait = this.retryMs;
      this.retryMs = Math.min(this.retryMs * 2, backoff.max);
      if (reschedule) this.schedule(gen, wait);
    }
  }

  private unauthorized(reason: string): void {
    // No retry storm: every watch stops until the operator connects again with a key that works.
    for (const w of this.watched.values()) w.watch.stop();
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.setLink('unauthorized', `${reason}: connect again with the right key (aep-companion openhands connect)`);
  }

  private watch(id: string, title: string | null): void {
    if (this.watched.has(id) || !this.conn || !this.rest) return;
    const server = this.conn.url;
    const row = this.deps.cursors.get(server, id);
    if (row?.ended) return;
    const gen = this.generation;
    // Resumed where the record says: the same run and card stay open across a restart.
    const mapping = newConversationMapping();
    if (row) Object.assign(mapping, { status: row.status, run: row.run, attention: row.attention, cards: row.cards });
    const w: Watched = {
      id,
      mapping,
      started: row !== null,
      ended: false,
      watch: new ConversationWatch({
        rest: this.rest,
        key: this.conn.key,
        conversation: id,
        cursor: { lastId: row?.lastId ?? null, lastTs: row?.lastTs ?? null },
        deliver: (events, cursor) => this.deliver(w, events, cursor, server, title),
        skipped: (reason) => this.deps.logger.warn('OpenHands frame skipped', { conversation: id, reason }),
        fatal: (kind, reason) => {
          if (gen !== this.generation) return;
          if (kind === 'unauthorized') return this.unauthorized(reason);
          void this.gone(w, reason);
        },
        trouble: (reason) => {
          if (gen !== this.generation) return;
          if (reason === null) {
            if (this.link.state === 'unreachable') this.setLink('connected', null);
          } else {
            this.deps.logger.info('OpenHands conversation stream interrupted', { conversation: id, reason });
            if (/cannot reach/.test(reason)) this.setLink('unreachable', reason);
          }
        },
        backoffMs: this.deps.backoffMs ?? DEFAULT_BACKOFF,
      }),
    };
    this.watched.set(id, w);
    this.deps.controls?.(id, true);
    if (mapping.run !== null) this.deps.emitter.setMappingState(id, { ...this.deps.emitter.mappingState(id), run: mapping.run });
    this.declare(id);
    w.watch.start();
  }

  private async deliver(w: Watched, events: readonly OhEvent[], cursor: Cursor, server: string, title: string | null): Promise<void> {
    if (w.ended) return;
    const context = this.deps.context();
    const emitter = this.deps.emitter;
    const out: AepEvent[] = [];
    if (!w.started) {
      w.started = true;
      const gate = context.capture.default;
      out.push(...emitter.stampMapped(w.id, [mapped('session.started', context, { client: { name: 'openhands-agent-server' }, ...(title && gate !== 'metadata' && gate !== 'none' ? { title: context.redact(title) } : {}) })]));
    }
    for (const e of events) {
      const mappedEvents = mapEvent(e, w.mapping, context, { answerable: this.deps.verbs(w.id).length > 0 && this.link.state === 'connected', conversation: w.id });
      out.push(...emitter.stampMapped(w.id, mappedEvents));
      if (mappedEvents.some((m) => m.type === 'session.ended')) w.ended = true;
      out.push(...this.deps.observed(w.id, e, w.mapping));
    }
    emitter.setMappingState(w.id, { ...emitter.mappingState(w.id), run: w.mapping.run });
    await emitter.send(out);
    this.deps.cursors.set(server, w.id, cursor.lastId, cursor.lastTs, w.mapping);
    if (w.ended) this.finish(w, server);
  }

  /** The conversation is gone (deleted, or unknown to the server): its session ends once. */
  private async gone(w: Watched, reason: string): Promise<void> {
    if (w.ended) return;
    w.ended = true;
    w.watch.stop();
    await w.watch.idle();
    const context = this.deps.context();
    const out: MappedEvent[] = [];
    if (w.mapping.attention !== null) {
      const subject = w.mapping.attention;
      w.mapping.attention = null;
      out.push(mapped('attention.resolved', context, { resolution: 'dismissed' }, { subject, run: w.mapping.run, causeHint: { type: 'attention.requested', key: subject } }));
    }
    if (w.mapping.run !== null) {
      const run = w.mapping.run;
      w.mapping.run = null;
      out.push(mapped('run.cancelled', context, { reason: 'deleted' }, { run, key: run, causeHint: { type: 'run.started', key: run } }));
    }
    out.push(mapped('session.ended', context, { reason: 'killed' }));
    this.deps.logger.info('OpenHands conversation ended', { conversation: w.id, reason });
    const settled = this.deps.observed(w.id, { id: '', timestamp: '', source: 'environment', kind: 'x-gone' } as OhEvent, w.mapping);
    if (w.started) await this.deps.emitter.send([...settled, ...this.deps.emitter.stampMapped(w.id, out)]).catch(() => undefined);
    if (this.conn) this.finish(w, this.conn.url);
  }

  private finish(w: Watched, server: string): void {
    w.watch.stop();
    this.deps.cursors.ended(server, w.id);
    this.deps.emitter.release(w.id);
    this.deps.controls?.(w.id, false);
  }
}
