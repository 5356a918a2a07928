import { describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../common/sessions';
import { EMPTY_TRAY_STATE, MAX_LISTED, trayIconName, trayItems, trayState, trayTooltip, type TrayItem, type TrayState } from '../../../main/electron/tray-items';

const session = (id: string, extra: Partial<SessionSummary> = {}): SessionSummary => ({
  source: 'urn:aep:claude-code',
  session: id,
  agent: 'claude-code',
  vendor: 'claude-code',
  cwd: '/home/u/projects/web-app',
  state: 'active',
  firstSeen: '2026-11-29T10:00:00.000Z',
  lastSeen: '2026-11-29T10:00:00.000Z',
  lastHook: 'PreToolUse',
  instructOptIn: true,
  permissionsOptIn: false,
  pendingAttention: 0,
  eventCount: 3,
  ...extra,
});

const find = (items: TrayItem[], label: string) => items.find((i) => i.kind !== 'separator' && i.label === label);

describe('tray state', () => {
  it('counts live sessions and lists those with open requests, most recent first, by vendor and project', () => {
    const state = trayState(
      [
        session('a', { pendingAttention: 1, lastSeen: '2026-11-29T10:01:00.000Z' }),
        session('b', { pendingAttention: 2, lastSeen: '2026-11-29T10:05:00.000Z', vendor: 'codex', agent: 'codex', cwd: '/srv/api/' }),
        session('c'),
        session('d', { state: 'ended', pendingAttention: 3 }),
        session('e', { vendor: null, agent: 'my-emitter', cwd: null, pendingAttention: 1, lastSeen: '2026-11-29T09:00:00.000Z' }),
      ],
      true,
    );
    expect(state.liveSessions).toBe(4);
    expect(state.attention).toEqual([
      { session: 'b', label: 'codex · api', pendingAttention: 2 },
      { session: 'a', label: 'claude-code · web-app', pendingAttention: 1 },
      { session: 'e', label: 'my-emitter', pendingAttention: 1 },
    ]);
    expect(state.steeringEnabled).toBe(true);
    expect(state.available).toBe(true);
  });

  it('picks the icon: attention beats activity, nothing live is idle', () => {
    expect(trayIconName(trayState([], false))).toBe('idle');
    expect(trayIconName(trayState([session('x', { state: 'ended' })], false))).toBe('idle');
    expect(trayIconName(trayState([session('x', { state: 'idle' })], false))).toBe('active');
    expect(trayIconName(trayState([session('x'), session('y', { pendingAttention: 1 })], false))).toBe('attention');
  });

  it('says in the tooltip what the icon means', () => {
    expect(trayTooltip(EMPTY_TRAY_STATE)).toBe('AEP Companion');
    expect(trayTooltip(trayState([session('x'), session('y', { pendingAttention: 2 })], true))).toBe('AEP Companion: 2 live sessions, 2 requests waiting, steering on');
    expect(trayTooltip(trayState([session('x')], false))).toBe('AEP Companion: 1 live session, steering off');
  });
});

describe('tray items', () => {
  it('shows the kill switch as a checkbox that flips to the opposite state', () => {
    const off = trayItems(trayState([], false));
    expect(find(off, 'Steering enabled')).toMatchObject({ kind: 'checkbox', checked: false, enabled: true, action: { type: 'set-steering', enabled: true } });
    const on = trayItems(trayState([], true));
    expect(find(on, 'Steering enabled')).toMatchObject({ kind: 'checkbox', checked: true, action: { type: 'set-steering', enabled: false } });
  });

  it('offers Quick instruct only while steering is on, and says why otherwise', () => {
    expect(find(trayItems(trayState([session('x')], true)), 'Quick instruct…')).toMatchObject({ enabled: true, action: { type: 'quick-instruct' } });
    expect(find(trayItems(trayState([session('x')], false)), 'Quick instruct… (steering is off)')).toMatchObject({ enabled: false });
  });

  it('lists the sessions needing attention, each opening its session, with the rest behind one inbox item', () => {
    const many = Array.from({ length: MAX_LISTED + 2 }, (_, i) => session(`s${i}`, { pendingAttention: 1, lastSeen: `2026-11-29T10:0${i}:00.000Z` }));
    const items = trayItems(trayState(many, true));
    expect(items[0]).toEqual({ kind: 'label', label: 'Needs attention' });
    const opens = items.filter((i) => i.kind === 'action' && i.action.type === 'open-session');
    expect(opens).toHaveLength(MAX_LISTED);
    expect(opens[0]).toMatchObject({ label: 'claude-code · web-app (1 waiting)', action: { type: 'open-session', session: `s${MAX_LISTED + 1}` } });
    expect(find(items, '2 more sessions…')).toMatchObject({ action: { type: 'open-inbox' } });
  });

  it('always ends with Open console and Quit, and keeps them usable while the daemon cannot be read', () => {
    const unavailable: TrayState = { ...EMPTY_TRAY_STATE };
    const items = trayItems(unavailable);
    expect(items.slice(-2)).toEqual([
      { kind: 'action', label: 'Open console', enabled: true, action: { type: 'open-console' } },
      { kind: 'action', label: 'Quit', enabled: true, action: { type: 'quit' } },
    ]);
    expect(find(items, 'Steering enabled')).toMatchObject({ enabled: false });
    expect(items.some((i) => i.kind === 'label')).toBe(false);
  });

  it('summarises the live sessions when nothing waits', () => {
    expect(trayItems(trayState([], false))[0]).toEqual({ kind: 'label', label: 'No live sessions' });
    expect(trayItems(trayState([session('a'), session('b')], false))[0]).toEqual({ kind: 'label', label: '2 live sessions' });
  });
});
