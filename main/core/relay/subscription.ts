/**
 * One subscription on any consuming binding (SSE or WS): replay from the store, then live delivery,
 * with the filter and capture ceiling applied to both. Live events arriving during the replay wait
 * in a bounded queue and are delivered afterwards unless the replay already covered them.
 *
 * Backpressure (AEP-0003 §8.4): the transport reports how many bytes sit unsent. Past the soft
 * mark, `debug`/`info` events are dropped (and counted); past the hard mark a `notice`-or-above
 * event cannot be delivered, so the subscription asks the transport to disconnect the consumer
 * (with a `closing` frame on WS), never dropping it silently. Replay waits for the socket to drain
 * instead, so a replay never costs more than the soft mark.
 */
import {
  severityRank,
  type AepEvent,
  type Capture,
  type Position,
} from '../../../common/aep/envelope';
import type { Filter } from '../aep/filter';
import type { EventStore, StoredEvent } from '../store/event-store';
import { replaySql } from '../store/replay-filter';
import { FanoutItem, ReplayItem, type Rendered } from './fanout-item';
import { comparePositions, type ReplayFrom } from './positions';

const NOTICE = severityRank('notice');

/** Replayed rows handled between two yields to the event loop. */
const REPLAY_SLICE = 256;

/** Resolves after the event loop ran one turn of other work (timers, I/O). */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** What a subscription needs from its connection. */
export interface DeliveryTransport {
  /** Bytes queued toward the consumer and not yet written to the socket. */
  bufferedBytes(): number;
  /** Sends one event. */
  sendEvent(rendered: Rendered): void;
  /** Tells the consumer that a resume position predates retained history. */
  sendReplayExhausted(session: string, earliest: { epoch: number; seq: number }): void;
  /** Resolves once the queued bytes fell below the soft mark, or the connection closed. */
  drained(): Promise<void>;
  /** The consumer is too slow to receive an event that must not be dropped: disconnect it. */
  overflow(reason: string): void;
  /** True once the connection is gone. */
  isClosed(): boolean;
}

/** Memory bounds of one subscription. */
export interface SubscriptionLimits {
  /** Queued bytes above which debug/info events are dropped. */
  readonly softBytes: number;
  /** Queued bytes above which the consumer is disconnected rather than sent a notice+ event. */
  readonly hardBytes: number;
  /** Live events held while the replay runs. */
  readonly maxPending: number;
}

/** Defaults: a slow consumer costs at most a few MiB. */
export const DEFAULT_SUBSCRIPTION_LIMITS: SubscriptionLimits = {
  softBytes: 1 << 20,
  hardBytes: 8 << 20,
  maxPending: 50_000,
};

/** What a subscription was asked for. */
export interface SubscriptionSpec {
  readonly id: string;
  readonly filter: Filter;
  readonly capture?: Capture;
  readonly from?: ReplayFrom;
}

/** A live subscription. */
export class Subscription {
  /**
   * Last delivered position per session (the `closing` frame reports it): the position alone,
   * updated in place, so a long-lived subscription holds no delivered event.
   */
  private readonly lastDelivered = new Map<string, { session: string; epoch: number; seq: number }>();
  /** Events dropped toward this consumer by the backpressure rule. */
  dropped = 0;
  /** Times the replay yielded to the event loop (after each store page and each slice of one). */
  replayTurns = 0;
  private live = false;
  private closed = false;
  private pending: FanoutItem[] = [];
  private readonly lastReplayed = new Map<string, { epoch: number; seq: number }>();

  constructor(
    readonly spec: SubscriptionSpec,
    private readonly transport: DeliveryTransport,
    private readonly store: EventStore,
    private readonly limits: SubscriptionLimits = DEFAULT_SUBSCRIPTION_LIMITS,
  ) {}

  /**
   * Replays what `from` asks for, then turns live (or, with `live: false`, stops after the
   * replay). Resolves when the replay is done; the subscription must already be registered for
   * fan-out so nothing committed meanwhile is missed.
   */
  async start(options: { live: boolean } = { live: true }): Promise<void> {
    const from = this.spec.from;
    if (from !== undefined) {
      // The filter's column part runs in SQL; when that is the whole filter and no ceiling lowers
      // anything, the stored text is forwarded as is, unparsed.
      const sql = replaySql(this.spec.filter.spec);
      const verbatim =
        sql.exact && (this.spec.capture === undefined || this.spec.capture === 'full');
      const sessions = this.spec.filter.spec.session;
      const wanted = (session: string): boolean =>
        sessions === undefined ||
        (Array.isArray(sessions) ? sessions.includes(session) : sessions === session);
      let plan: { session: string; after: { epoch: number; seq: number } | null }[];
      if (from === 'all' && sql.where === '' && sessions === undefined) {
        // Replay-all with no column filter: one pass over the table in row order for every session
        // held in order (each table page read once), then the others a session at a time.
        const held = this.store.replayHeld();
        for (const page of held.pages) if (!(await this.replayPage(page, verbatim, sql.exact))) return;
        plan = held.disordered.map((session) => ({ session, after: null }));
      } else {
        plan =
          from === 'all'
            ? this.store.heldSessions().map((session) => ({ session, after: null }))
            : from.map((p) => ({ session: p.session, after: { epoch: p.epoch, seq: p.seq } }));
      }
      for (const step of plan) {
        if (this.closed || this.transport.isClosed()) return;
        if (!wanted(step.session)) continue;
        if (step.after !== null) this.checkExhausted(step.session, step.after);
        for (const page of this.store.replayPages(step.session, step.after, sql))
          if (!(await this.replayPage(page, verbatim, sql.exact))) return;
      }
    }
    if (this.closed || this.transport.isClosed()) return;
    if (!options.live) {
      this.close();
      return;
    }
    const waiting = this.pending;
    this.pending = [];
    this.live = true;
    for (const item of waiting) {
      if (this.closed) return;
      if (this.coveredByReplay(item.event)) continue;
      this.deliverLive(item);
    }
  }

  /**
   * Sends one page of replayed rows (`exact`: the SQL part was the whole filter), a slice at a
   * time, then takes a turn; false once the subscription or its connection is closed.
   */
  private async replayPage(page: readonly StoredEvent[], verbatim: boolean, exact: boolean): Promise<boolean> {
    for (let i = 0; i < page.length; i++) {
      const stored = page[i];
      // A slice of a page at a time (and a turn between pages, below): a hook arriving
      // meanwhile waits for one slice, not for the replay.
      if (i > 0 && i % REPLAY_SLICE === 0) {
        this.replayTurns++;
        await nextTurn();
      }
      if (this.closed || this.transport.isClosed()) return false;
      if (stored.sequenced)
        this.lastReplayed.set(stored.session, { epoch: stored.epoch, seq: stored.seq });
      if (verbatim) {
        this.send(new ReplayItem(stored));
      } else {
        if (!exact && !this.spec.filter.matches(stored.event)) continue;
        this.send(new FanoutItem(stored.event, stored.json).at(this.spec.capture));
      }
      if (this.transport.bufferedBytes() >= this.limits.softBytes) await this.transport.drained();
    }
    // One page of bounded work at a time: hooks and other connections run in between.
    this.replayTurns++;
    await nextTurn();
    return !(this.closed || this.transport.isClosed());
  }

  /** Offers a fanned-out event; filtered, down-leveled and backpressured here. */
  offer(item: FanoutItem): void {
    if (this.closed || !this.spec.filter.matches(item.event)) return;
    if (this.live) {
      this.deliverLive(item);
      return;
    }
    if (this.pending.length < this.limits.maxPending) {
      this.pending.push(item);
    } else if (item.severityRank() >= NOTICE) {
      this.close();
      this.transport.overflow('slow-consumer: live events overflowed while replaying');
    } else {
      this.dropped++;
    }
  }

  /** Last delivered position per session (what a `closing` frame reports). */
  delivered(): Position[] {
    return [...this.lastDelivered.values()].map((p) => ({ ...p }));
  }

  /** Stops delivery (unsubscribe, connection gone). */
  close(): void {
    this.closed = true;
    this.pending = [];
  }

  /** True once closed. */
  isClosed(): boolean {
    return this.closed;
  }

  private deliverLive(item: FanoutItem): void {
    const buffered = this.transport.bufferedBytes();
    if (buffered < this.limits.softBytes) {
      this.send(item.at(this.spec.capture));
      return;
    }
    const important = item.severityRank() >= NOTICE;
    if (buffered >= this.limits.hardBytes && important) {
      this.close();
      this.transport.overflow('slow-consumer');
      return;
    }
    if (!important) {
      this.dropped++;
      return;
    }
    this.send(item.at(this.spec.capture));
  }

  private send(rendered: Rendered): void {
    this.transport.sendEvent(rendered);
    const e = rendered.head;
    if (e.session === undefined || e.seq === undefined) return;
    const last = this.lastDelivered.get(e.session);
    if (last === undefined)
      this.lastDelivered.set(e.session, { session: e.session, epoch: e.epoch ?? 0, seq: e.seq });
    else {
      last.epoch = e.epoch ?? 0;
      last.seq = e.seq;
    }
  }

  private checkExhausted(session: string, after: { epoch: number; seq: number }): void {
    const trimmed = this.store.trimmedThrough(session);
    if (trimmed === null || comparePositions(trimmed, after) <= 0) return;
    const earliest = this.store.earliest(session);
    if (earliest !== null) this.transport.sendReplayExhausted(session, earliest);
  }

  private coveredByReplay(event: AepEvent): boolean {
    if (event.session === undefined || event.seq === undefined) return false;
    const last = this.lastReplayed.get(event.session);
    return (
      last !== undefined && comparePositions({ epoch: event.epoch ?? 0, seq: event.seq }, last) <= 0
    );
  }
}
