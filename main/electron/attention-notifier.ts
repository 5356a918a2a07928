/**
 * Native notifications for new attention requests (permission prompts, forms), while the
 * 'ui.notifications' setting is on. The text comes from the event as the relay stored it, so
 * whatever the capture ceiling withheld stays withheld here too.
 */
import type { AepEvent } from '../../common/aep/envelope';
import type { NativeNotification } from '../../common/bridge';
import { isVendorId, VENDOR_NAMES } from '../../common/vendors';
import type { Relay } from '../core/relay/relay';
import { watchRelay } from './relay-watch';

/** Longest prompt shown in a notification body. */
const MAX_PROMPT = 240;

/** The notification for an `attention.requested` event, or null for any other event. */
export function attentionNotice(event: AepEvent): NativeNotification | null {
  if (event.type !== 'attention.requested') return null;
  const who = isVendorId(event.agent) ? VENDOR_NAMES[event.agent] : event.agent;
  const data = event.data ?? {};
  const kind = data.kind === 'permission' ? 'permission' : 'input';
  const title = kind === 'permission' ? `${who} asks for permission` : `${who} needs your input`;
  const prompt = typeof data.prompt === 'string' && data.prompt.trim() !== '' ? data.prompt.trim() : typeof event.subject === 'string' ? event.subject : 'Open the inbox to answer.';
  const body = prompt.length > MAX_PROMPT ? `${prompt.slice(0, MAX_PROMPT - 1)}…` : prompt;
  return { title, body, route: '#/inbox' };
}

/** Where notifications are decided and shown. */
export interface AttentionNotifierDeps {
  readonly relay: Relay;
  /** Read at each event, so turning the setting off takes effect at once. */
  readonly enabled: () => boolean;
  readonly show: (notification: NativeNotification) => void;
}

/** Shows a notification for each new attention request; returns the stop function. */
export function notifyOnAttention(deps: AttentionNotifierDeps): () => void {
  return watchRelay(deps.relay, { type: 'attention.requested' }, (event) => {
    if (!deps.enabled()) return;
    const notice = attentionNotice(event);
    if (notice !== null) deps.show(notice);
  });
}
