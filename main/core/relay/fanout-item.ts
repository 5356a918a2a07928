/**
 * One event on its way to subscribers: the parsed envelope, its verbatim JSON, and the down-leveled
 * renderings per capture ceiling, computed once per event however many subscriptions share a ceiling.
 */
import { severityRank, type AepEvent, type Capture } from '../../../common/aep/envelope';
import { downlevel } from '../aep/downlevel';

/** A rendered event: what a subscription actually sends. */
export interface Rendered {
  readonly event: AepEvent;
  readonly json: string;
  /** The SSE message text, built once by the first SSE subscription that sends it. */
  sse?: string;
  /** The WebSocket text frame, built once by the first WS subscription that sends it. */
  wsFrame?: Buffer;
}

/** An event shared by every subscription it is offered to. */
export class FanoutItem implements Rendered {
  sse?: string;
  wsFrame?: Buffer;
  private rendered: Map<Capture, Rendered> | undefined;
  private rank: number | undefined;

  constructor(
    readonly event: AepEvent,
    readonly json: string,
  ) {}

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
    hit = lowered === this.event ? this : { event: lowered, json: JSON.stringify(lowered) };
    (this.rendered ??= new Map()).set(ceiling, hit);
    return hit;
  }
}
