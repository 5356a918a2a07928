/**
 * The two `DurableLog`s: over the event store (the daemon: the events are inserted inside the same
 * SQLite transaction as the steering rows and audit rows, then fanned out through their channel,
 * where the store sees them as already admitted), and a plain one for parts without a store.
 */
import type { Database } from 'better-sqlite3';
import type { AepEvent } from '../../../common/aep/envelope';
import type { Logger } from '../logger';
import type { EventStore } from '../store/event-store';
import type { Committed, DurableLog, Keep, VendorChannel } from './steering-types';

type Kept = [VendorChannel, readonly AepEvent[]];

/** Fans the kept events out; the promise resolves when every send settled (a failure is logged: the events are stored). */
function sendAll(kept: readonly Kept[], logger: Logger): Promise<void> {
  return Promise.all(
    kept.map(([channel, events]) =>
      channel.send(events).catch((error: unknown) => logger.error('could not fan out committed events', { error: String(error) })),
    ),
  ).then(() => undefined);
}

/** Steering rows and their events in one transaction of `db`; fan-out after COMMIT. */
export function storeDurableLog(db: Database, store: EventStore, logger: Logger): DurableLog {
  return {
    commit<T>(write: (keep: Keep) => T): Committed<T> {
      const kept: Kept[] = [];
      const keep: Keep = (channel, events) => {
        if (events.length === 0) return;
        store.admitNow(events.map((event) => ({ event, json: JSON.stringify(event) })));
        kept.push([channel, events]);
      };
      const value = db.inTransaction ? write(keep) : db.transaction(() => write(keep))();
      return { value, sent: sendAll(kept, logger) };
    },
  };
}

/** No store: `write` runs (inside `atomic` when given) and the kept events are sent afterwards. */
export function plainDurableLog(logger: Logger, atomic: <T>(fn: () => T) => T = (fn) => fn()): DurableLog {
  return {
    commit<T>(write: (keep: Keep) => T): Committed<T> {
      const kept: Kept[] = [];
      const value = atomic(() => write((channel, events) => void (events.length > 0 && kept.push([channel, events]))));
      return { value, sent: sendAll(kept, logger) };
    },
  };
}
