/** GET /api/sessions against a real daemon fed by the hook routes. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ccPayload, ManualScheduler, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from '../hooks/hooks-harness';

let d: HooksDaemon;
let clock: TestClock;
beforeEach(async () => {
  clock = new TestClock();
  d = await startHooksDaemon({ clock, scheduler: new ManualScheduler() });
});
afterEach(async () => {
  await d.close();
  removeDataDir(d.dataDir);
});

const sessions = async (token = d.daemon.tokens.operator) => {
  const res = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${token}` } });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>[] };
};

describe('GET /api/sessions', () => {
  it('lists sessions most recent first with state and last hook', async () => {
    await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionStart', 'older'));
    clock.advance(1_000);
    await postHook(d.url, d.daemon.tokens.hook, 'qwen-code', { hook_event_name: 'SessionStart', session_id: 'newer', cwd: '/q', source: 'startup' });
    const { json } = await sessions();
    expect(json.map((s) => [s.session, s.vendor, s.state, s.lastHook])).toEqual([
      ['newer', 'qwen-code', 'active', 'SessionStart'],
      ['older', 'claude-code', 'active', 'SessionStart'],
    ]);
  });

  it('shows a session as ended after its session-end hook', async () => {
    await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionStart', 's1'));
    await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionEnd', 's1', { reason: 'other' }));
    expect((await sessions()).json[0]).toMatchObject({ session: 's1', state: 'ended', lastHook: 'SessionEnd' });
  });

  it('counts a held permission request as pending attention while it waits', async () => {
    const held = postHook(
      d.url,
      d.daemon.tokens.hook,
      'claude-code',
      ccPayload('PermissionRequest', 's1', { tool_name: 'Bash', tool_input: { command: 'ls' } }),
      { permissions: true },
    );
    let pending = 0;
    while (pending === 0) pending = ((await sessions()).json[0]?.pendingAttention as number | undefined) ?? 0;
    expect(pending).toBe(1);
    d.parts.permissions.close();
    await held;
    expect((await sessions()).json[0].pendingAttention).toBe(0);
  });

  it('refuses the hook token', async () => {
    expect((await sessions(d.daemon.tokens.hook)).status).toBeGreaterThanOrEqual(401);
  });
});
