/**
 * Change notification of the console store: per-area version numbers that views read, and one
 * batched notification per animation frame (or per burst interval while thousands of events
 * arrive), so a burst of live events costs one render.
 */

/** Areas views can subscribe to. */
export type StoreArea = 'connection' | 'sessions' | 'fleet' | 'status' | 'commands' | 'detail' | 'stream';

/** More events than this between two frames make a burst. */
const BURST_EVENTS = 200;
/** Refresh interval of the views during a burst. */
const BURST_INTERVAL_MS = 150;

/** Schedules a batched notification; defaults to requestAnimationFrame. */
export type Schedule = (fn: () => void) => void;

/** The default schedule: the next animation frame, or a 16 ms timer outside a browser. */
export const defaultSchedule: Schedule = (fn) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => fn()) : setTimeout(fn, 16));

/** Versions, dirty areas and listeners. */
export class StoreNotifier {
  private readonly versions: Record<StoreArea, number> = { connection: 0, sessions: 0, fleet: 0, status: 0, commands: 0, detail: 0, stream: 0 };
  private readonly dirty = new Set<StoreArea>();
  private readonly listeners = new Set<() => void>();
  private flushScheduled = false;
  private lastFlushAt = 0;
  /** Events taken in since the last flush (burst detection). */
  protected ingestedSinceFlush = 0;

  constructor(private readonly scheduleFn: Schedule = defaultSchedule) {}

  /** Subscribes to the views' change notifications. */
  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  /** Version of one area; changes whenever that area changes. */
  version(area: StoreArea): number {
    return this.versions[area];
  }

  /** Marks an area changed; listeners run once on the next frame. */
  touch(area: StoreArea): void {
    this.dirty.add(area);
    if (this.flushScheduled) return;
    this.flushScheduled = true;
    this.scheduleFn(() => this.flush());
  }

  /**
   * Runs pending notifications. During a burst (a replay of thousands of events) views refresh
   * every BURST_INTERVAL_MS instead of every frame: the frame budget goes to taking events in,
   * and nobody reads 60 intermediate timelines a second.
   */
  flush(): void {
    this.flushScheduled = false;
    const now = typeof performance !== 'undefined' ? performance.now() : Date.now();
    if (this.ingestedSinceFlush > BURST_EVENTS && now - this.lastFlushAt < BURST_INTERVAL_MS) {
      this.flushScheduled = true;
      this.scheduleFn(() => this.flush());
      return;
    }
    this.lastFlushAt = now;
    this.ingestedSinceFlush = 0;
    for (const area of this.dirty) this.versions[area]++;
    this.dirty.clear();
    for (const l of [...this.listeners]) l();
  }
}
