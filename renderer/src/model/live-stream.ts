/**
 * The "all sessions" live stream: every event from every session as it arrives, kept in a
 * bounded ring while its view is open (the subscription exists only then). Filters by vendor,
 * project and event kind are the view's; the ring is the store's.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { AepSocket } from '../api/aep-socket';
import { eventKey } from './event-log';

/** Events the stream view keeps (newest). */
export const STREAM_LIMIT = 2_000;
const SUB_ID = 'live-stream';

/** The live stream ring. */
export class LiveStream {
  events: AepEvent[] = [];
  private seen = new Set<string>();
  private viewers = 0;

  constructor(
    private readonly socket: Pick<AepSocket, 'subscribe' | 'unsubscribe'>,
    private readonly changed: () => void,
    private readonly limit = STREAM_LIMIT,
  ) {}

  /** True while a view holds the stream open. */
  get open(): boolean {
    return this.viewers > 0;
  }

  /** A view opened: subscribe live to everything (nothing replayed). */
  acquire(): () => void {
    if (this.viewers++ === 0) this.socket.subscribe(SUB_ID, { from: () => undefined });
    return () => {
      if (--this.viewers === 0) {
        this.socket.unsubscribe(SUB_ID);
        this.events = [];
        this.seen.clear();
        this.changed();
      }
    };
  }

  /** Takes one event in (the same event may arrive on several subscriptions: kept once). */
  add(event: AepEvent): void {
    if (this.viewers === 0) return;
    const key = eventKey(event);
    if (this.seen.has(key)) return;
    this.seen.add(key);
    this.events.push(event);
    if (this.events.length > this.limit) {
      const drop = this.events.splice(0, this.events.length - this.limit);
      for (const e of drop) this.seen.delete(eventKey(e));
    }
    this.changed();
  }
}
