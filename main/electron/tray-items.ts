/**
 * The tray as plain data: its state derived from the daemon's sessions and kill switch, the icon
 * and tooltip for that state, and the menu items. Pure, so every branch is unit-tested in Node;
 * tray.ts only maps items to Menu.buildFromTemplate and actions to handlers.
 */
import { attentionBadge, waitingRequests, type AttentionBadge } from '../../common/attention-badge';
import type { SessionSummary } from '../../common/sessions';

/** Which status icon the tray shows. */
export type TrayIconName = 'idle' | 'active' | 'attention';

/** One session as the tray lists it. */
export interface TraySession {
  readonly session: string;
  /** e.g. "claude-code · my-project". */
  readonly label: string;
  readonly pendingAttention: number;
}

/** Everything the tray shows. */
export interface TrayState {
  readonly steeringEnabled: boolean;
  /** Sessions that are not ended. */
  readonly liveSessions: number;
  /** Sessions with open attention requests, most recent first. */
  readonly attention: readonly TraySession[];
  /** False while the daemon cannot be read (the menu still offers Open console and Quit). */
  readonly available: boolean;
}

/** What a tray item asks for when clicked. */
export type TrayAction =
  | { readonly type: 'open-session'; readonly session: string }
  | { readonly type: 'open-inbox' }
  | { readonly type: 'quick-instruct' }
  | { readonly type: 'set-steering'; readonly enabled: boolean }
  | { readonly type: 'open-console' }
  | { readonly type: 'quit' };

/** One tray menu item. */
export type TrayItem =
  | { readonly kind: 'separator' }
  | { readonly kind: 'label'; readonly label: string }
  | { readonly kind: 'action'; readonly label: string; readonly enabled: boolean; readonly action: TrayAction }
  | { readonly kind: 'checkbox'; readonly label: string; readonly checked: boolean; readonly enabled: boolean; readonly action: TrayAction };

/** Sessions listed by name before the rest collapse into one "more" item. */
export const MAX_LISTED = 5;

/** The state before the daemon was first read. */
export const EMPTY_TRAY_STATE: TrayState = { steeringEnabled: false, liveSessions: 0, attention: [], available: false };

const baseName = (path: string): string => path.replace(/[\\/]+$/, '').split(/[\\/]/).pop() || path;

/** The tray state from the daemon's sessions and the kill switch. */
export function trayState(sessions: readonly SessionSummary[], steeringEnabled: boolean): TrayState {
  const live = sessions.filter((s) => s.state !== 'ended');
  const attention = live
    .filter((s) => s.pendingAttention > 0)
    .sort((a, b) => (a.lastSeen < b.lastSeen ? 1 : a.lastSeen > b.lastSeen ? -1 : 0))
    .map((s) => ({
      session: s.session,
      label: [s.vendor ?? s.agent, s.cwd !== null ? baseName(s.cwd) : null].filter((p) => p !== null).join(' · '),
      pendingAttention: s.pendingAttention,
    }));
  return { steeringEnabled, liveSessions: live.length, attention, available: true };
}

/** The status icon for a state: attention waiting wins over activity. */
export function trayIconName(state: TrayState): TrayIconName {
  if (state.attention.length > 0) return 'attention';
  return state.liveSessions > 0 ? 'active' : 'idle';
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** The dock badge and tray title for a state: the requests waiting, none while the daemon is unread. */
export function trayBadge(state: TrayState): AttentionBadge {
  return attentionBadge(state.available ? waitingRequests(state.attention) : 0);
}

/** The tooltip: what the icon means, in words. */
export function trayTooltip(state: TrayState): string {
  if (!state.available) return 'AEP Companion';
  const parts = [`AEP Companion: ${plural(state.liveSessions, 'live session', 'live sessions')}`];
  const badge = trayBadge(state);
  if (badge.sentence !== null) parts.push(badge.sentence);
  parts.push(state.steeringEnabled ? 'steering on' : 'steering off');
  return parts.join(', ');
}

/** The tray menu for a state. */
export function trayItems(state: TrayState): TrayItem[] {
  const items: TrayItem[] = [];
  if (state.attention.length > 0) {
    items.push({ kind: 'label', label: 'Needs attention' });
    for (const s of state.attention.slice(0, MAX_LISTED)) {
      items.push({
        kind: 'action',
        label: `${s.label || s.session} (${s.pendingAttention} waiting)`,
        enabled: true,
        action: { type: 'open-session', session: s.session },
      });
    }
    const rest = state.attention.length - MAX_LISTED;
    if (rest > 0) items.push({ kind: 'action', label: `${plural(rest, 'more session', 'more sessions')}…`, enabled: true, action: { type: 'open-inbox' } });
    items.push({ kind: 'separator' });
  } else if (state.available) {
    items.push({ kind: 'label', label: state.liveSessions === 0 ? 'No live sessions' : plural(state.liveSessions, 'live session', 'live sessions') });
    items.push({ kind: 'separator' });
  }
  // Instructions are refused while the kill switch is off, so the entry says why it is unavailable.
  items.push({
    kind: 'action',
    label: state.steeringEnabled ? 'Quick instruct…' : 'Quick instruct… (steering is off)',
    enabled: state.available && state.steeringEnabled,
    action: { type: 'quick-instruct' },
  });
  items.push({
    kind: 'checkbox',
    label: 'Steering enabled',
    checked: state.steeringEnabled,
    enabled: state.available,
    action: { type: 'set-steering', enabled: !state.steeringEnabled },
  });
  items.push({ kind: 'separator' });
  items.push({ kind: 'action', label: 'Open console', enabled: true, action: { type: 'open-console' } });
  items.push({ kind: 'action', label: 'Quit', enabled: true, action: { type: 'quit' } });
  return items;
}
