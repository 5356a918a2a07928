/**
 * An in-process consumer of the daemon's relay: live events matching an attr-match filter reach a
 * callback, with no socket in between. The shell uses it for attention notifications and to know
 * when the tray must refresh. Plain Node (no Electron), so it is tested against a real daemon.
 */
import type { AepEvent } from '../../common/aep/envelope';
import { parseFilter } from '../core/aep/filter';
import type { Relay } from '../core/relay/relay';
import { Subscription, type DeliveryTransport } from '../core/relay/subscription';

let counter = 0;

/** Subscribes to live events matching `filter` (AEP attr-match); returns the unsubscribe. */
export function watchRelay(relay: Relay, filter: Readonly<Record<string, unknown>>, onEvent: (event: AepEvent) => void): () => void {
  const parsed = parseFilter(filter);
  if (!parsed.ok) throw new Error(parsed.error.message);
  let closed = false;
  const transport: DeliveryTransport = {
    // In process there is no socket buffer: the callback runs synchronously.
    bufferedBytes: () => 0,
    sendEvent: (rendered) => {
      try {
        onEvent(rendered.event);
      } catch {
        // A failing listener must not break fan-out to the daemon's other subscribers.
      }
    },
    sendReplayExhausted: () => undefined,
    drained: () => Promise.resolve(),
    overflow: () => undefined,
    isClosed: () => closed,
  };
  const sub = new Subscription({ id: `shell-${++counter}`, filter: parsed.value }, transport, relay.store);
  const remove = relay.addSubscription(sub);
  // No `from`: live delivery only (notifications are for what happens from now on).
  void sub.start({ live: true });
  return () => {
    closed = true;
    remove();
  };
}
