/**
 * In-process live watchers of the relay (the desktop shell's notifications and tray refresh): a
 * callback per attr-match filter, called synchronously for each fanned-out event that matches. No
 * replay, no socket, no backpressure; a throwing callback never disturbs the fan-out.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { Filter } from '../aep/filter';
import { createLogger } from '../logger';

const log = createLogger('relay.watch');

interface Watcher {
  readonly filter: Filter;
  readonly onEvent: (event: AepEvent) => void;
}

/** The live watchers of one relay. */
export class LiveWatchers {
  private readonly watchers = new Set<Watcher>();

  /** Adds a watcher; returns its removal. */
  add(filter: Filter, onEvent: (event: AepEvent) => void): () => void {
    const watcher: Watcher = { filter, onEvent };
    this.watchers.add(watcher);
    return () => {
      this.watchers.delete(watcher);
    };
  }

  /** True when no watcher is registered (the fan-out skips the loop). */
  get empty(): boolean {
    return this.watchers.size === 0;
  }

  /** Offers one fanned-out event to every watcher. */
  offer(event: AepEvent): void {
    for (const w of this.watchers) {
      if (!w.filter.matches(event)) continue;
      try {
        w.onEvent(event);
      } catch (e) {
        log.warn('a live watcher failed', { type: event.type, error: String(e) });
      }
    }
  }

  /** Drops every watcher (shutdown). */
  clear(): void {
    this.watchers.clear();
  }
}
