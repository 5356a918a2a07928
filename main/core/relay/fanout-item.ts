/**
 * One event on its way to subscribers: the parsed envelope, its verbatim JSON, and the down-leveled
 * renderings per capture ceiling, computed once per event however many subscriptions share a ceiling.
 * The wire renderings (SSE message bytes, WS frame) are built once per rendering and shared by
 * every subscription that sends it.
 */
import { severityRank, type AepEvent, type Capture } from '../../../common/aep/envelope';
import { downlevel } from '../aep/downlevel';
import type { StoredEvent } from '../store/event-store';

/** The envelope attributes the bindings frame an event with (SSE `event:`/`id:`, positions). */
export interface EventHead {
  readonly type: string;
  readonly session?: string;
  readonly epoch?: number;
  readonly seq?: number;
}

/** A rendered event: what a subscription actually sends. */
export interface Rendered {
  /** The envelope (for a replayed row, parsed only when read). */
  readonly event: AepEvent;
  readonly json: string;
  /** Type, session, epoch and seq, readable without parsing `json`. */
  readonly head: EventHead;
  /** The SSE message bytes, built once by the first SSE subscription that sends it. */
  sse?: Buffer;
  /** The WebSocket text frame, built once by the first WS subscription that sends it. */
  wsFrame?: Buffer;
}

/** An event shared by every subscription it is offered to. */
export class FanoutItem implements Rendered {
  sse?: Buffer;
  wsFrame?: Buffer;
  private rendered: Map<Capture, Rendered> | undefined;
  private rank: number | undefined;

  constructor(
    readonly event: AepEvent,
    readonly json: string,
  ) {}

  get head(): EventHead {
    return this.event;
  }

  /** The event's severity rank (AEP-0001 §8.1), computed once. */
  severityRank(): number {
    return (this.rank ??= severityRank(this.event.severity));
  }

  /** The event down-leveled to `ceiling` (the verbatim text when nothing changes, or no ceiling). */
  at(ceiling: Capture | undefined): Rendered {
    if (ceiling === undefined) return this;
    let hit = this.rendered?.get(ceiling);
    if (hit) return hit;
    const lowered = downlevel(this.event, ceiling);
    hit =
      lowered === this.event
        ? this
        : { event: lowered, json: JSON.stringify(lowered), head: lowered };
    (this.rendered ??= new Map()).set(ceiling, hit);
    return hit;
  }
}

/**
 * A replayed row sent verbatim (no filter, no lowering ceiling): framed from the routing columns,
 * so the stored JSON text is forwarded without a parse/stringify round trip.
 */
export class ReplayItem implements Rendered, EventHead {
  sse?: Buffer;
  wsFrame?: Buffer;
  readonly type: string;
  readonly session: string;
  readonly epoch: number | undefined;
  readonly seq: number | undefined;

  constructor(private readonly stored: StoredEvent) {
    this.type = stored.type;
    this.session = stored.session;
    this.epoch = stored.ownEpoch;
    this.seq = stored.ownSeq;
  }

  get json(): string {
    return this.stored.json;
  }

  get event(): AepEvent {
    return this.stored.event;
  }

  get head(): EventHead {
    return this;
  }
}
