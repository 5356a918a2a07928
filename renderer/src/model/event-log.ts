/**
 * An ordered, deduplicated list of one session's events. Sequenced events sit in (epoch, seq)
 * order; events without seq (commands and other foreign-emitter events, AEP-0001 §5.2) keep
 * arrival order. Dedupe is on (source, id) (AEP-0001 §7.4), which is what makes a resume with
 * redelivery at the boundary show each event exactly once.
 */
import type { AepEvent } from '../../../common/aep/envelope';

/** A resume position within one session. */
export interface LogPosition {
  readonly epoch: number;
  readonly seq: number;
}

/** Compares two positions in (epoch, seq) order. */
export function comparePositions(a: LogPosition, b: LogPosition): number {
  return a.epoch !== b.epoch ? a.epoch - b.epoch : a.seq - b.seq;
}

/** The resume position an event occupies, or null for seq-less events. */
export function positionOf(event: AepEvent): LogPosition | null {
  return typeof event.seq === 'number' ? { epoch: event.epoch ?? 0, seq: event.seq } : null;
}

/** Dedupe key: the (source, id) pair. */
export const eventKey = (event: AepEvent): string => `${event.source}\n${event.id}`;

/** One session's ordered events. */
export class EventLog {
  readonly events: AepEvent[] = [];
  private readonly seen = new Set<string>();
  /** Highest position held: what a resume asks to continue after. */
  last: LogPosition | null = null;
  /** Bumped on every change so views can memoise derived models. */
  version = 0;
  /** Redeliveries refused as duplicates. */
  duplicates = 0;
  /** Bumped when an event lands before the end (a backfill): incremental readers start over. */
  reorders = 0;

  /** Adds an event; returns false when it is a duplicate. */
  add(event: AepEvent): boolean {
    const key = eventKey(event);
    if (this.seen.has(key)) {
      this.duplicates++;
      return false;
    }
    this.seen.add(key);
    const pos = positionOf(event);
    if (!pos || !this.last || comparePositions(pos, this.last) >= 0) {
      this.events.push(event);
    } else {
      // A late event (backfill): walk back past later sequenced events to its place.
      let i = this.events.length - 1;
      while (i >= 0) {
        const other = positionOf(this.events[i]);
        if (other && comparePositions(other, pos) <= 0) break;
        i--;
      }
      this.events.splice(i + 1, 0, event);
      if (i + 1 < this.events.length - 1) this.reorders++;
    }
    if (pos && (!this.last || comparePositions(pos, this.last) > 0)) this.last = pos;
    this.version++;
    return true;
  }

  /** True when the (source, id) pair is already held. */
  has(event: AepEvent): boolean {
    return this.seen.has(eventKey(event));
  }

  get size(): number {
    return this.events.length;
  }
}
