/**
 * The shell's plain-Node parts against a real daemon (port 0, temp data dir) fed through the real
 * hook routes: attention notifications, the tray feed, and the tray's kill-switch flip.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditPage } from '../../../common/audit';
import type { NativeNotification } from '../../../common/bridge';
import { startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import { attentionNotice, notifyOnAttention } from '../../../main/electron/attention-notifier';
import { setSteeringFromTray, type DaemonEndpoint } from '../../../main/electron/daemon-api';
import { TrayFeed } from '../../../main/electron/tray-feed';
import type { TrayState } from '../../../main/electron/tray-items';

let dir: string;
let daemon: DaemonHandle;
let endpoint: DaemonEndpoint;
const stops: (() => void)[] = [];
/** Hooks the permission loop holds until answered; the daemon frees them when it closes. */
const held: Promise<unknown>[] = [];

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'aep-shell-'));
  daemon = await startDaemon({ dataDir: join(dir, 'data'), port: 0 });
  endpoint = { url: daemon.url, operatorToken: () => daemon.tokens.operator };
});

afterEach(async () => {
  for (const stop of stops.splice(0)) stop();
  await daemon.close();
  await Promise.allSettled(held.splice(0));
  rmSync(dir, { recursive: true, force: true });
});

/** Posts a Claude Code hook the way the CLI does. */
async function hook(event: string, session: string, extra: Record<string, unknown> = {}, query = ''): Promise<unknown> {
  const res = await fetch(`${daemon.url}/hooks/claude-code${query}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${daemon.tokens.hook}`, 'content-type': 'application/json' },
    body: JSON.stringify({ hook_event_name: event, session_id: session, cwd: '/home/u/projects/web-app', transcript_path: '/tmp/t.jsonl', ...extra }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

const permission = (session: string) => hook('PermissionRequest', session, { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });

/** A promise for the next value a callback receives that satisfies `test`. */
function nextValue<T>(test: (v: T) => boolean): { push: (v: T) => void; value: Promise<T> } {
  let resolve!: (v: T) => void;
  const value = new Promise<T>((r) => (resolve = r));
  return { push: (v) => (test(v) ? resolve(v) : undefined), value };
}

describe('attention notifications', () => {
  it('shows a native notification for a new permission prompt, pointing at its card', async () => {
    const shown = nextValue<NativeNotification>(() => true);
    stops.push(notifyOnAttention({ relay: daemon.context.relay, enabled: () => daemon.context.settings.get('ui.notifications'), show: shown.push }));
    await permission('s1');
    const n = await shown.value;
    expect(n.title).toBe('Claude Code asks for permission');
    expect(n.body).toContain('Bash');
    // A click opens the request's card in its session.
    expect(n.route).toMatch(/^#\/sessions\/s1\?event=\w+$/);
  });

  it('stays quiet while the ui.notifications setting is off', async () => {
    const seen: NativeNotification[] = [];
    expect(daemon.context.settings.set({ 'ui.notifications': false }).ok).toBe(true);
    stops.push(notifyOnAttention({ relay: daemon.context.relay, enabled: () => daemon.context.settings.get('ui.notifications'), show: (n) => seen.push(n) }));
    // A second in-process watcher proves the event was fanned out before we look.
    const delivered = nextValue<string>((t) => t === 'attention.requested');
    const { watchRelay } = await import('../../../main/electron/relay-watch');
    stops.push(watchRelay(daemon.context.relay, { type: 'attention.requested' }, (e) => delivered.push(e.type)));
    await permission('s2');
    await delivered.value;
    expect(seen).toEqual([]);
  });

  it('only turns attention requests into notices, and falls back when the prompt was withheld', () => {
    const base = { aep: '0.1', id: '01J', time: '2026-11-29T10:00:00Z', source: 'urn:x', agent: 'codex', session: 's' };
    expect(attentionNotice({ ...base, type: 'tool.call.requested' })).toBeNull();
    expect(attentionNotice({ ...base, type: 'attention.requested', data: { kind: 'form' } })).toEqual({ title: 'Codex CLI needs your input', body: 'Open the inbox to answer.', route: '#/sessions/s?event=01J', session: 's', request: '01J', answers: [] });
    const long = attentionNotice({ ...base, agent: 'my-agent', type: 'attention.requested', data: { kind: 'permission', prompt: 'y'.repeat(500) } });
    expect(long?.title).toBe('my-agent asks for permission');
    expect(long?.body.length).toBe(240);
  });
});

describe('tray feed', () => {
  it('reports live sessions, attention waiting, and kill-switch flips from any surface', async () => {
    let waiter = nextValue<TrayState>(() => true);
    const feed = new TrayFeed({
      endpoint,
      relay: daemon.context.relay,
      settings: daemon.context.settings,
      coalesceMs: 1,
      onState: (s) => waiter.push(s),
    });
    stops.push(() => feed.close());
    expect(await feed.refresh()).toEqual({ steeringEnabled: false, liveSessions: 0, attention: [], available: true });

    waiter = nextValue((s) => s.attention.length === 1);
    await hook('SessionStart', 's1');
    // With the permission-loop opt-in the prompt is held for the operator: that is what counts as waiting.
    held.push(hook('PermissionRequest', 's1', { tool_name: 'Bash', tool_input: { command: 'ls' } }, '?permissions=1'));
    const withAttention = await waiter.value;
    expect(withAttention).toMatchObject({ liveSessions: 1, attention: [{ session: 's1', label: 'claude-code · web-app', pendingAttention: 1 }] });

    waiter = nextValue((s) => s.steeringEnabled);
    const flipped = await setSteeringFromTray(endpoint, true);
    expect(flipped).toEqual({ ok: true, value: { enabled: true } });
    expect((await waiter.value).steeringEnabled).toBe(true);
  });

  it('marks the state unavailable when the daemon cannot be read', async () => {
    const feed = new TrayFeed({ endpoint: { url: daemon.url, operatorToken: () => 'wrong-token' }, relay: daemon.context.relay, settings: daemon.context.settings, onState: () => undefined });
    stops.push(() => feed.close());
    expect((await feed.refresh()).available).toBe(false);
  });
});

describe('tray kill switch', () => {
  it('flips steering through /api and audits it with the tray as the surface', async () => {
    expect(await setSteeringFromTray(endpoint, true)).toEqual({ ok: true, value: { enabled: true } });
    expect(daemon.context.settings.get('features.steering')).toBe(true);
    expect(await setSteeringFromTray(endpoint, false)).toEqual({ ok: true, value: { enabled: false } });
    const res = await fetch(`${daemon.url}/api/audit?surface=tray`, { headers: { authorization: `Bearer ${daemon.tokens.operator}` } });
    const page = (await res.json()) as AuditPage;
    expect(page.rows.map((r) => [r.action, r.actor, r.surface, r.outcome])).toEqual([
      ['steering.disabled', 'operator', 'tray', 'ok'],
      ['steering.enabled', 'operator', 'tray', 'ok'],
    ]);
  });

  it('reports a refusal as a value', async () => {
    const result = await setSteeringFromTray({ url: daemon.url, operatorToken: () => 'nope' }, true);
    expect(result).toMatchObject({ ok: false, error: { code: 'refused' } });
    expect(daemon.context.settings.get('features.steering')).toBe(false);
  });

  it('reports an unreachable daemon as a value', async () => {
    const url = daemon.url;
    await daemon.close();
    const result = await setSteeringFromTray({ url, operatorToken: () => 'x' }, true);
    expect(result).toMatchObject({ ok: false, error: { code: 'unreachable' } });
    daemon = await startDaemon({ dataDir: join(dir, 'data'), port: 0 });
  });
});
