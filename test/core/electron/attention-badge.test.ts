/**
 * The waiting-request count the desktop shell shows outside the window (dock / launcher badge,
 * menu-bar title, tray tooltip), from the daemon's sessions: common/attention-badge.ts and how
 * the tray model applies it.
 */
import { describe, expect, it } from 'vitest';
import { attentionBadge, BADGE_MAX, waitingRequests } from '../../../common/attention-badge';
import type { SessionSummary } from '../../../common/sessions';
import { EMPTY_TRAY_STATE, trayBadge, trayState, trayTooltip } from '../../../main/electron/tray-items';

const session = (id: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({
  source: 'urn:aep:claude-code',
  session: id,
  agent: 'claude-code',
  vendor: 'claude-code',
  cwd: '/home/u/projects/web-app',
  state: 'active',
  firstSeen: '2026-11-29T10:00:00.000Z',
  lastSeen: '2026-11-29T10:00:00.000Z',
  lastHook: 'PermissionRequest',
  instructOptIn: false,
  permissionsOptIn: true,
  pendingAttention: 0,
  eventCount: 3,
  ...extra,
});

describe('waiting requests', () => {
  it('adds the open requests of sessions that have not ended', () => {
    const sessions = [
      session('a', { pendingAttention: 2 }),
      session('b', { pendingAttention: 1, state: 'idle' }),
      session('c', { pendingAttention: 4, state: 'ended' }),
      session('d'),
    ];
    expect(waitingRequests(sessions)).toBe(3);
    expect(waitingRequests([])).toBe(0);
  });

  it('ignores counts that are not whole positive numbers', () => {
    expect(waitingRequests([{ pendingAttention: -1 }, { pendingAttention: Number.NaN }, { pendingAttention: 1.5 }, { pendingAttention: 2 }])).toBe(2);
  });
});

describe('attention badge', () => {
  it('is cleared when nothing waits', () => {
    expect(attentionBadge(0)).toEqual({ count: 0, text: '', sentence: null });
    expect(attentionBadge(-3)).toEqual({ count: 0, text: '', sentence: null });
  });

  it('counts one request and many, and caps the text, not the count', () => {
    expect(attentionBadge(1)).toEqual({ count: 1, text: '1', sentence: '1 request waiting' });
    expect(attentionBadge(7)).toEqual({ count: 7, text: '7', sentence: '7 requests waiting' });
    expect(attentionBadge(BADGE_MAX + 1)).toEqual({ count: 100, text: '99+', sentence: '100 requests waiting' });
  });

  it('is what the tray shows for the daemon sessions, and nothing while the daemon is unread', () => {
    const state = trayState([session('a', { pendingAttention: 1 }), session('b', { pendingAttention: 2 }), session('c', { pendingAttention: 5, state: 'ended' })], true);
    expect(trayBadge(state)).toEqual({ count: 3, text: '3', sentence: '3 requests waiting' });
    expect(trayTooltip(state)).toBe('AEP Companion: 2 live sessions, 3 requests waiting, steering on');
    expect(trayBadge({ ...state, available: false }).count).toBe(0);
    expect(trayBadge(EMPTY_TRAY_STATE).count).toBe(0);
    const answered = trayState([session('a'), session('b')], true);
    expect(trayBadge(answered)).toEqual({ count: 0, text: '', sentence: null });
    expect(trayTooltip(answered)).toBe('AEP Companion: 2 live sessions, steering on');
  });
});
