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

let n = 0;
/** An AEP event from a third-party emitter. */
const event = (fields: Record<string, unknown>): Record<string, unknown> => ({
  aep: '0.1',
  id: `01KEXT${String(++n).padStart(20, '0')}`,
  time: '2026-11-29T10:00:00.000Z',
  ...(fields.session === undefined || fields.type === 'attention.routed' ? {} : { epoch: 0 }),
  ...fields,
});

/** POSTs events to /events as an NDJSON batch with the hook token; fails the test unless all were taken. */
const postEvents = async (events: readonly Record<string, unknown>[]): Promise<Response> => {
  const res = await fetch(`${d.url}/events`, {
    method: 'POST',
    headers: { authorization: `Bearer ${d.daemon.tokens.hook}`, 'content-type': 'application/x-ndjson', 'aep-version': '0.1' },
    body: events.map((e) => JSON.stringify(e)).join('\n') + '\n',
  });
  if (res.status !== 202) throw new Error(`POST /events answered ${res.status}: ${await res.text()}`);
  return res;
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

  it('lists the sessions of other AEP emitters seen at admission, with vendor null and the agent from the event', async () => {
    const source = 'aep://ci.example/agent/builder';
    const ndjson = [
      event({ type: 'session.started', source, agent: 'builder', session: 'b1', seq: 1, data: {} }),
      event({ type: 'progress.status', source, agent: 'builder', session: 'b1', seq: 2, data: {} }),
      event({ type: 'agent.heartbeat', source, agent: 'builder', data: {} }),
    ];
    expect((await postEvents(ndjson)).status).toBe(202);
    await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionStart', 'cc1'));
    const { json } = await sessions();
    const rows = json.map((s) => [s.session, s.agent, s.vendor, s.source, s.state]);
    expect(rows).toHaveLength(2);
    expect(rows).toContainEqual(['b1', 'builder', null, source, 'active']);
    expect(rows).toContainEqual(['cc1', 'claude-code', 'claude-code', 'aep://localhost/agent/claude-code/session/cc1', 'active']);
    expect(json.find((s) => s.session === 'b1')?.eventCount).toBe(2);
  });

  it("shows an emitter's session as ended after its session.ended, and a later event does not revive it", async () => {
    const source = 'aep://ci.example/agent/builder';
    await postEvents([event({ type: 'session.started', source, agent: 'builder', session: 'b2', seq: 1, data: {} })]);
    expect((await sessions()).json[0]).toMatchObject({ session: 'b2', state: 'active' });
    await postEvents([event({ type: 'session.ended', source, agent: 'builder', session: 'b2', seq: 2, data: { reason: 'normal' } })]);
    expect((await sessions()).json[0]).toMatchObject({ session: 'b2', state: 'ended' });
    await postEvents([event({ type: 'progress.status', source, agent: 'builder', session: 'b2', seq: 3, data: {} })]);
    expect((await sessions()).json[0]).toMatchObject({ session: 'b2', state: 'ended' });
  });

  it("records no session for a router's attention.routed naming another emitter's session, nor a second row for a hook session", async () => {
    await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionStart', 'cc1'));
    const routed = event({ type: 'attention.routed', source: 'aep://router.example', agent: 'router', session: 'cc1', subject: '01KREQ', data: { to: 'pager' } });
    await postEvents([routed]);
    const { json } = await sessions();
    expect(json.map((s) => [s.session, s.agent])).toEqual([['cc1', 'claude-code']]);
  });

  it('refuses the hook token', async () => {
    expect((await sessions(d.daemon.tokens.hook)).status).toBeGreaterThanOrEqual(401);
  });
});
