/** The permission loop through the real hook routes and relay: held hooks, answers, timeouts, and the opt-in. */
import { afterEach, describe, expect, it } from 'vitest';
import { ccPayload, command, Consumer, ManualScheduler, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from './hooks-harness';

let d: HooksDaemon | undefined;
let c: Consumer | undefined;

afterEach(async () => {
  c?.close();
  c = undefined;
  if (d) {
    await d.close();
    removeDataDir(d.dataDir);
    d = undefined;
  }
});

async function setup(scheduler = new ManualScheduler()): Promise<{ d: HooksDaemon; c: Consumer; scheduler: ManualScheduler }> {
  d = await startHooksDaemon({ clock: new TestClock(), scheduler });
  c = await Consumer.open(d.url, d.daemon.tokens.operator);
  return { d, c, scheduler };
}

const permissionRequest = (session: string) => ccPayload('PermissionRequest', session, { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } });

describe('permission loop', () => {
  it('answers a permission moment {} at once and observes it when the opt-in is off', async () => {
    const { d, c } = await setup();
    const reply = await postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s1'));
    expect(reply.json).toEqual({});
    const request = await c.event((e) => e.type === 'attention.requested');
    expect(request.data).toMatchObject({ kind: 'permission', respond_via: ['oob'] });
    const roster = await c.roster();
    expect(roster.find((e) => e.session === 's1')?.control).toMatchObject({ accepts: [] });
  });

  it('declares control.attention.respond for opted-in sessions and applies an operator allow to the held hook', async () => {
    const { d, c } = await setup();
    const held = postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s1'), { permissions: true });
    const request = await c.event((e) => e.type === 'attention.requested');
    expect(request.data).toMatchObject({ respond_via: ['control'] });
    expect((await c.roster()).find((e) => e.session === 's1')?.control).toMatchObject({ accepts: ['control.attention.respond'] });
    const cmd = command('control.attention.respond', 's1', { answer: { option: 'allow' } }, { subject: request.id, cause: request.id, surface: 'console' });
    c.send(cmd);
    expect((await held).json).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const answered = await c.event((e) => e.type === 'attention.answered');
    expect(answered).toMatchObject({ subject: request.id, cause: cmd.id });
    await c.event((e) => e.type === 'attention.resolved' && e.cause === answered.id);
    const audit = await fetch(`${d.url}/api/audit?action=permission.decision`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    expect(((await audit.json()) as { rows: unknown[] }).rows[0]).toMatchObject({ commandId: cmd.id, outcome: 'ok', surface: 'console', session: 's1' });
  });

  it('applies a Codex deny with the operator text as the reason', async () => {
    const { d, c } = await setup();
    const held = postHook(
      d.url,
      d.daemon.tokens.hook,
      'codex',
      { hook_event_name: 'PermissionRequest', session_id: 'c1', turn_id: 't1', tool_name: 'shell', tool_input: { command: 'rm -rf build' } },
      { permissions: true },
    );
    const request = await c.event((e) => e.type === 'attention.requested');
    c.send(command('control.attention.respond', 'c1', { answer: { text: 'clean with make clean instead' } }, { subject: request.id, capture: 'redacted' }));
    expect((await held).json).toMatchObject({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'clean with make clean instead' } },
    });
  });

  it('frees the hook with {} and emits attention.timeout when nobody answers within the hold', async () => {
    const { d, c, scheduler } = await setup();
    const held = postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s1'), { permissions: true });
    const request = await c.event((e) => e.type === 'attention.requested');
    expect(scheduler.armed).toBe(1);
    scheduler.fireAll();
    expect((await held).json).toEqual({});
    const timeout = await c.event((e) => e.type === 'attention.timeout');
    expect(timeout).toMatchObject({ subject: request.id, data: { after_ms: 50_000 } });
  });

  it('carries the moment the hold gives up as expires_at, and times out at exactly that moment', async () => {
    const { d, c, scheduler } = await setup();
    const held = postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s1'), { permissions: true });
    const request = await c.event((e) => e.type === 'attention.requested');
    // The test clock stands still: the hold (50 s by default) runs from the request's own time.
    expect(request.data?.expires_at).toBe('2026-11-29T10:00:50.000Z');
    expect(Date.parse(String(request.data?.expires_at)) - Date.parse(request.time)).toBe(50_000);
    expect(scheduler.timers.filter((t) => !t.cancelled).map((t) => t.ms)).toEqual([50_000]);
    scheduler.fireAll();
    expect((await held).json).toEqual({});
    // Not held (no opt-in): nothing gives up, so no deadline is claimed.
    void postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s2'));
    const observed = await c.event((e) => e.type === 'attention.requested' && e.session === 's2');
    expect(observed.data).not.toHaveProperty('expires_at');
  });

  it('dismisses the request when the vendor hangs up on a held hook', async () => {
    const { d, c } = await setup();
    const abort = new AbortController();
    const target = new URL('/hooks/claude-code?permissions=1', d.url);
    const held = fetch(target, {
      method: 'POST',
      headers: { authorization: `Bearer ${d.daemon.tokens.hook}`, 'content-type': 'application/json' },
      body: JSON.stringify(permissionRequest('s1')),
      signal: abort.signal,
    }).catch(() => 'hung up');
    const request = await c.event((e) => e.type === 'attention.requested');
    abort.abort();
    expect(await held).toBe('hung up');
    const resolved = await c.event((e) => e.type === 'attention.resolved');
    expect(resolved).toMatchObject({ subject: request.id, data: { resolution: 'dismissed' } });
    expect(d.parts.permissions.held).toBe(0);
  });

  it('frees held hooks with {} when the daemon closes', async () => {
    const { d } = await setup();
    const held = postHook(d.url, d.daemon.tokens.hook, 'claude-code', permissionRequest('s1'), { permissions: true });
    await c!.event((e) => e.type === 'attention.requested');
    c!.close();
    c = undefined;
    // Closing twice is harmless: afterEach closes again and removes the directory.
    const closing = d.close();
    expect((await held).json).toEqual({});
    await closing;
  });
});
