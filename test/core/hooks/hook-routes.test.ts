import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ccPayload, command, Consumer, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from './hooks-harness';

let d: HooksDaemon;
let consumer: Consumer | undefined;

beforeEach(async () => {
  d = await startHooksDaemon({ clock: new TestClock() });
});
afterEach(async () => {
  consumer?.close();
  consumer = undefined;
  await d.close();
  removeDataDir(d.dataDir);
});

const hook = () => d.daemon.tokens.hook;

describe('POST /hooks/:vendor', () => {
  it('answers an observation hook with {} as application/json', async () => {
    const res = await postHook(d.url, hook(), 'claude-code', ccPayload('SessionStart', 's1', { source: 'startup' }));
    expect(res.status).toBe(200);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.text).toBe('{}');
  });

  it('refuses a call without the hook token and accepts nothing from it', async () => {
    const res = await postHook(d.url, 'not-a-token', 'claude-code', ccPayload('SessionStart', 's1'));
    expect(res.status).toBe(401);
    const sessions = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    expect(await sessions.json()).toEqual([]);
  });

  it('answers 404 with a clear error for an unknown vendor', async () => {
    const res = await postHook(d.url, hook(), 'gemini', ccPayload('SessionStart', 's1'));
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: 'unknown-vendor' });
  });

  it('answers 400 for a body that is not JSON or not a hook call', async () => {
    const bad = await postHook(d.url, hook(), 'claude-code', '{not json');
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ error: 'invalid-payload' });
    const noSession = await postHook(d.url, hook(), 'claude-code', { hook_event_name: 'SessionStart' });
    expect(noSession.status).toBe(400);
    expect(noSession.json).toMatchObject({ error: 'invalid-payload' });
  });

  it('answers alike to a Content-Length body and a chunked one', async () => {
    // Each call goes to a session of its own on each way, so both start from the same state.
    const calls: [string, (session: string) => unknown, { instruct?: boolean }][] = [
      ['claude-code', (s) => ccPayload('SessionStart', s, { source: 'startup' }), {}],
      ['claude-code', (s) => ccPayload('UserPromptSubmit', s, { prompt: 'go' }), { instruct: true }],
      ['claude-code', () => '{not json', {}],
      ['claude-code', () => ({ hook_event_name: 'SessionStart' }), {}],
      ['claude-code', () => '', {}],
      ['gemini', (s) => ccPayload('SessionStart', s), {}],
    ];
    const held = async (): Promise<number> =>
      ((await (await fetch(`${d.url}/healthz`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } })).json()) as { events: number }).events;
    for (const [i, [vendor, payload, query]] of calls.entries()) {
      const before = await held();
      const lane = await postHook(d.url, hook(), vendor, payload(`lane-${i}`), query);
      const between = await held();
      const node = await postHook(d.url, hook(), vendor, payload(`node-${i}`), { ...query, chunked: true });
      expect([lane.status, lane.contentType, lane.text]).toEqual([node.status, node.contentType, node.text]);
      expect(between - before).toBe((await held()) - between);
    }
    expect(await held()).toBeGreaterThan(0);
  });

  it('emits the mapped events with the vendor session id verbatim, our agent, and increasing seq', async () => {
    consumer = await Consumer.open(d.url, d.daemon.tokens.operator);
    const session = 'Sess/with spaces:1';
    await postHook(d.url, hook(), 'codex', { hook_event_name: 'SessionStart', session_id: session, source: 'startup', model: 'm', cwd: '/p' });
    await postHook(d.url, hook(), 'codex', { hook_event_name: 'UserPromptSubmit', session_id: session, turn_id: 't1', prompt: 'hi' });
    const run = await consumer.event((e) => e.type === 'run.started');
    const started = await consumer.event((e) => e.type === 'session.started');
    expect(started).toMatchObject({ session, agent: 'codex', seq: 1 });
    expect(run).toMatchObject({ session, agent: 'codex', seq: 2, run: 't1', epoch: started.epoch });
  });

  it('records the session with vendor, cwd, last hook and opt-ins', async () => {
    await postHook(d.url, hook(), 'claude-code', ccPayload('SessionStart', 's1', { source: 'startup' }), { instruct: true, permissions: true });
    await postHook(d.url, hook(), 'claude-code', ccPayload('UserPromptSubmit', 's1', { prompt: 'hi' }));
    const res = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    const [row] = (await res.json()) as Record<string, unknown>[];
    expect(row).toMatchObject({
      session: 's1',
      vendor: 'claude-code',
      agent: 'claude-code',
      cwd: '/work/project',
      state: 'active',
      lastHook: 'UserPromptSubmit',
      instructOptIn: true,
      permissionsOptIn: true,
      pendingAttention: 0,
    });
    expect(row.eventCount).toBe(2);
  });

  it('replies {} at once, logs and audits when handling fails inside the daemon', async () => {
    d.parts.killSwitch.set(true, { actor: 'operator', surface: 'api' });
    await postHook(d.url, hook(), 'claude-code', ccPayload('SessionStart', 's1'), { instruct: true });
    consumer = await Consumer.open(d.url, d.daemon.tokens.operator);
    consumer.send(command('x.claude-code.control.instruct', 's1', { text: 'hello' }));
    await consumer.event((e) => e.type === 'control.accepted');
    d.parts.engine.deliver = () => {
      throw new Error('disk on fire');
    };
    const res = await postHook(d.url, hook(), 'claude-code', ccPayload('UserPromptSubmit', 's1', { prompt: 'go' }), { instruct: true });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({});
    const audit = await fetch(`${d.url}/api/audit?action=hook.error`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    const page = (await audit.json()) as { rows: { detail: { error: string }; outcome: string; session: string }[] };
    expect(page.rows[0]).toMatchObject({ outcome: 'error', session: 's1', detail: { error: 'disk on fire' } });
  });
});
