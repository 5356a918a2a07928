/**
 * How many requests wait for an answer, and how the desktop shell shows that number outside the
 * window: the dock / launcher badge count and the short text beside the tray icon. Pure, shared
 * by the Electron shell (main/electron/tray.ts applies it) and its tests.
 */

/** A session as the count needs it (SessionSummary, or the tray's list of sessions). */
export interface WaitingSource {
  readonly pendingAttention: number;
  /** Ended sessions hold no live request; absent counts as live. */
  readonly state?: string;
}

/** Requests waiting for an answer across the sessions that have not ended. */
export function waitingRequests(sessions: readonly WaitingSource[]): number {
  let waiting = 0;
  for (const s of sessions) {
    if (s.state === 'ended') continue;
    const n = s.pendingAttention;
    if (Number.isSafeInteger(n) && n > 0) waiting += n;
  }
  return waiting;
}

/** Largest number a badge spells out; beyond it the badge reads `99+`. */
export const BADGE_MAX = 99;

/** What the shell shows for a number of waiting requests. */
export interface AttentionBadge {
  /** For the dock / launcher badge (`app.setBadgeCount`); 0 clears it. */
  readonly count: number;
  /** Beside the tray icon (macOS menu bar title); empty when nothing waits. */
  readonly text: string;
  /** One sentence for the tray tooltip, or null when nothing waits. */
  readonly sentence: string | null;
}

/** The badge for a number of waiting requests. */
export function attentionBadge(waiting: number): AttentionBadge {
  const n = Number.isSafeInteger(waiting) && waiting > 0 ? waiting : 0;
  if (n === 0) return { count: 0, text: '', sentence: null };
  return {
    count: n,
    text: n > BADGE_MAX ? `${BADGE_MAX}+` : String(n),
    sentence: `${n} ${n === 1 ? 'request' : 'requests'} waiting`,
  };
}
