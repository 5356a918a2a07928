/**
 * Native notifications for new attention requests (permission prompts, forms), while the
 * 'ui.notifications' setting is on. The text comes from the event as the relay stored it, so
 * whatever the capture ceiling withheld stays withheld here too. A click opens the request's card
 * in its session. Where the platform gives notifications buttons (macOS), a permission prompt the
 * daemon can answer carries Allow and Deny: a button sends `control.attention.respond` through
 * `relay.sendCommand`, the gate, routing and audit a console's answer takes (surface 'tray').
 */
import type { AepEvent } from '../../common/aep/envelope';
import type { NativeNotification } from '../../common/bridge';
import { isVendorId, VENDOR_NAMES } from '../../common/vendors';
import type { Relay } from '../core/relay/relay';
import { ulid } from '../core/aep/ulid';
import { watchRelay } from './relay-watch';

/** Longest prompt shown in a notification body. */
const MAX_PROMPT = 240;

/** One button of a notification: the option of the request it answers with. */
export interface NoticeAnswer {
  readonly label: string;
  readonly option: string;
}

/** A notification for one attention request. */
export interface AttentionNotice extends NativeNotification {
  /** The request's session and event id (null session: no session to answer in). */
  readonly session: string | null;
  readonly request: string;
  /** Buttons answering the request from the notification; empty: clicking opens its card. */
  readonly answers: readonly NoticeAnswer[];
}

/** Whether the platform's notifications can carry buttons (Electron's `actions`: macOS only). */
export function notificationActionsSupported(platform: NodeJS.Platform): boolean {
  return platform === 'darwin';
}

/** Allow and Deny, when the request offers both and the daemon can answer it (`respond_via` control). */
function answersOf(data: Record<string, unknown>): NoticeAnswer[] {
  if (data.kind !== 'permission') return [];
  const via = Array.isArray(data.respond_via) ? data.respond_via : [];
  if (!via.includes('control')) return [];
  const options = Array.isArray(data.options) ? (data.options as { id?: unknown; label?: unknown }[]) : [];
  const pick = (id: string): NoticeAnswer | null => {
    const o = options.find((x) => x && x.id === id);
    return o ? { option: id, label: typeof o.label === 'string' && o.label !== '' ? o.label : id } : null;
  };
  const allow = pick('allow');
  const deny = pick('deny');
  return allow && deny ? [allow, deny] : [];
}

/** The notification for an `attention.requested` event, or null for any other event. */
export function attentionNotice(event: AepEvent, canAct = false): AttentionNotice | null {
  if (event.type !== 'attention.requested') return null;
  const who = isVendorId(event.agent) ? VENDOR_NAMES[event.agent] : event.agent;
  const data = event.data ?? {};
  const kind = data.kind === 'permission' ? 'permission' : 'input';
  const title = kind === 'permission' ? `${who} asks for permission` : `${who} needs your input`;
  const prompt = typeof data.prompt === 'string' && data.prompt.trim() !== '' ? data.prompt.trim() : typeof event.subject === 'string' ? event.subject : 'Open the inbox to answer.';
  const body = prompt.length > MAX_PROMPT ? `${prompt.slice(0, MAX_PROMPT - 1)}…` : prompt;
  const session = typeof event.session === 'string' && event.session !== '' ? event.session : null;
  // The request's card, in its session: the same place the console's own links open.
  const route = session === null ? '#/inbox' : `#/sessions/${encodeURIComponent(session)}?event=${encodeURIComponent(event.id)}`;
  return { title, body, route, session, request: event.id, answers: canAct && session !== null ? answersOf(data) : [] };
}

/** The command a notification button sends: the console's answer, from the tray's surface. */
export function noticeAnswerCommand(notice: AttentionNotice, option: string, now: Date, id: string = ulid()): AepEvent {
  return {
    aep: '0.1',
    id,
    type: 'control.attention.respond',
    time: now.toISOString(),
    source: 'urn:aep-companion:tray',
    agent: 'aep-companion',
    ...(notice.session !== null ? { session: notice.session } : {}),
    subject: notice.request,
    cause: notice.request,
    data: { answer: { option } },
    surface: 'tray',
  };
}

/** Answers a request from its notification through the relay's command path; the outcome, for logs. */
export async function answerFromNotice(relay: Pick<Relay, 'sendCommand'>, notice: AttentionNotice, option: string, now: Date = new Date()): Promise<string | null> {
  if (!notice.answers.some((a) => a.option === option)) return `the notification offers no option ${option}`;
  const sent = await relay.sendCommand(noticeAnswerCommand(notice, option, now), { surface: 'tray', label: 'notification' });
  return sent.ok ? null : sent.error.message;
}

/** Where notifications are decided and shown. */
export interface AttentionNotifierDeps {
  readonly relay: Relay;
  /** Read at each event, so turning the setting off takes effect at once. */
  readonly enabled: () => boolean;
  /** Whether notifications can carry buttons here (`notificationActionsSupported`). */
  readonly canAct?: boolean;
  readonly show: (notification: AttentionNotice) => void;
}

/** Shows a notification for each new attention request; returns the stop function. */
export function notifyOnAttention(deps: AttentionNotifierDeps): () => void {
  return watchRelay(deps.relay, { type: 'attention.requested' }, (event) => {
    if (!deps.enabled()) return;
    const notice = attentionNotice(event, deps.canAct === true);
    if (notice !== null) deps.show(notice);
  });
}
