/**
 * An in-process consumer of the daemon's relay: live events matching an attr-match filter reach a
 * callback, with no socket in between (`Relay.watch`). The shell uses it for attention
 * notifications and to know when the tray must refresh. Plain Node (no Electron), so it is tested
 * against a real daemon.
 */
import type { AepEvent } from '../../common/aep/envelope';
import { parseFilter } from '../core/aep/filter';
import type { Relay } from '../core/relay/relay';

/** Subscribes to live events matching `filter` (AEP attr-match); returns the unsubscribe. */
export function watchRelay(
  relay: Relay,
  filter: Readonly<Record<string, unknown>>,
  onEvent: (event: AepEvent) => void,
): () => void {
  const parsed = parseFilter(filter);
  if (!parsed.ok) throw new Error(parsed.error.message);
  // Live delivery only: notifications are for what happens from now on.
  return relay.watch(parsed.value, onEvent);
}
