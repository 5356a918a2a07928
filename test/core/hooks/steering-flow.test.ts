/** Steering end to end through the real relay, the real hook routes and a real WebSocket consumer. */
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { ccPayload, command, Consumer, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from './hooks-harness';

let d: HooksDaemon | undefined;
const consumers: Consumer[] = [];

afterEach(async () => {
  for (const c of consumers.splice(0)) c.close();
  if (d) {
    await d.close();
    removeDataDir(d.dataDir);
    d = undefined;
  }
});

async function setup(options: { steering?: boolean; clock?: TestClock } = {}): Promise<{ d: HooksDaemon; c: Consumer }> {
  d = await startHooksDaemon({ clock: options.clock ?? new TestClock() });
  if (options.steering !== false) await api(d, 'PUT', '/api/steering', { enabled: true, surface: 'console' });
  const c = await Consumer.open(d.url, d.daemon.tokens.operator);
  consumers.push(c);
  return { d, c };
}

async function api(daemon: HooksDaemon, method: string, path: string, body?: unknown): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${daemon.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${daemon.daemon.tokens.operator}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, json: await res.json() };
}

const cc = (daemon: HooksDaemon, event: string, session: string, extra: Record<string, unknown> = {}, query: { instruct?: boolean; permissions?: boolean } = { instruct: true }) =>
  postHook(daemon.url, daemon.daemon.tokens.hook, 'claude-code', ccPayload(event, session, extra), query);

const accepts = async (c: Consumer, session: string): Promise<unknown[] | undefined> =>
  ((await c.roster()).find((e) => e.session === session)?.control as { accepts: unknown[] } | undefined)?.accepts;

async function instructAndAck(c: Consumer, session: string, text: string, vendor = 'claude-code'): Promise<AepEvent> {
  const cmd = command(`x.${vendor}.control.instruct`, session, { text });
  c.send(cmd);
  await c.event((e) => e.cause === cmd.id && e.type.startsWith('control.'));
  return cmd;
}

describe('declaration', () => {
  it('declares the instruct verb only for sessions whose hooks carry the opt-in', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 'opted', {}, { instruct: true });
    await cc(d, 'SessionStart', 'plain', {}, { instruct: false });
    expect(await accepts(c, 'opted')).toEqual(['x.claude-code.control.instruct']);
    expect(await accepts(c, 'plain')).toEqual([]);
  });

  it('has the relay refuse an instruction to a session without the opt-in, never reaching the queue', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 'plain', {}, { instruct: false });
    const cmd = command('x.claude-code.control.instruct', 'plain', { text: 'hi' });
    c.send(cmd);
    const refusal = await c.next((f) => f.type === 'error' && f.cause === cmd.id);
    expect(refusal.code).toBe('unsupported');
  });

  it('withdraws the verb from the roster at once when steering is turned off, and declares it again when on', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 's1');
    expect(await accepts(c, 's1')).toEqual(['x.claude-code.control.instruct']);
    await api(d, 'PUT', '/api/steering', { enabled: false });
    expect(await accepts(c, 's1')).toEqual([]);
    await api(d, 'PUT', '/api/steering', { enabled: true });
    expect(await accepts(c, 's1')).toEqual(['x.claude-code.control.instruct']);
  });
});

describe('delivery through hook replies', () => {
  it('acks, then hands the text to the next eligible hook reply and emits delivered cause-linked with the moment', async () => {
    const clock = new TestClock();
    const { d, c } = await setup({ clock });
    await cc(d, 'SessionStart', 's1', { source: 'startup' });
    const cmd = command('x.claude-code.control.instruct', 's1', { text: 'run the linter before committing' }, { surface: 'console' });
    c.send(cmd);
    const ack = await c.event((e) => e.cause === cmd.id && e.type === 'control.accepted');
    expect(ack).toMatchObject({ agent: 'claude-code', session: 's1' });
    clock.advance(1_234);
    const reply = await cc(d, 'UserPromptSubmit', 's1', { prompt: 'go on' });
    expect(reply.json).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'run the linter before committing' } });
    const delivered = await c.event((e) => e.type === 'x.claude-code.instruction.delivered');
    expect(delivered).toMatchObject({ cause: cmd.id, data: { queued_ms: 1_234, moment: 'UserPromptSubmit' } });
    expect(delivered.seq).toBeGreaterThan(ack.seq as number);
    const audit = (await api(d, 'GET', `/api/audit?session=s1`)).json as { rows: { action: string; commandId: string; surface: string }[] };
    const actions = audit.rows.filter((r) => r.commandId === cmd.id).map((r) => r.action);
    expect(actions).toEqual(expect.arrayContaining(['instruct.command', 'instruct.accepted', 'instruct.delivered']));
    const instructions = (await api(d, 'GET', '/api/instructions?session=s1')).json;
    expect(instructions).toEqual([expect.objectContaining({ commandId: cmd.id, state: 'delivered', moment: 'UserPromptSubmit', queuedMs: 1_234 })]);
  });

  it('answers a retried command with the same ack bytes and queues it once', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 's1');
    const cmd = command('x.claude-code.control.instruct', 's1', { text: 'only once' });
    c.send(cmd);
    await c.event((e) => e.cause === cmd.id);
    c.send(cmd);
    await c.next(() => c.texts.filter((t) => t.includes(`"cause":"${cmd.id}"`)).length >= 2);
    const acks = c.texts.filter((t) => t.includes(`"cause":"${cmd.id}"`));
    expect(acks[1]).toBe(acks[0]);
    const reply = await cc(d, 'UserPromptSubmit', 's1', { prompt: 'x' });
    expect((reply.json as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext).toBe('only once');
  });

  it('refuses an instruction that declares capture metadata while carrying text, and queues nothing', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 's1');
    const cmd = command('x.claude-code.control.instruct', 's1', { text: 'leaks past metadata' }, { capture: 'metadata' });
    c.send(cmd);
    const error = await c.next((f) => f.type === 'error' && f.id === cmd.id);
    expect(error).toMatchObject({ code: 'invalid-event' });
    expect(String(error.detail)).toContain('data/text is gated redacted');
    const reply = await cc(d, 'UserPromptSubmit', 's1', { prompt: 'x' });
    expect(reply.json).toEqual({});
    expect(c.events().some((e) => e.id === cmd.id)).toBe(false);
  });

  it('shows an instruction to a metadata subscriber without its text', async () => {
    const { d, c } = await setup();
    const meta = await Consumer.open(d.url, d.daemon.tokens.operator, {}, 'metadata');
    consumers.push(meta);
    await cc(d, 'SessionStart', 's1');
    const cmd = await instructAndAck(c, 's1', 'secret plan');
    const seen = await meta.event((e) => e.id === cmd.id);
    expect([seen.capture, seen.data]).toEqual(['metadata', {}]);
    expect(meta.texts.some((t) => t.includes('secret plan'))).toBe(false);
  });

  it('gates a rejection detail by each subscriber\'s capture ceiling', async () => {
    const { d, c } = await setup();
    const meta = await Consumer.open(d.url, d.daemon.tokens.operator, {}, 'metadata');
    consumers.push(meta);
    await cc(d, 'SessionStart', 's1');
    const cmd = command('x.claude-code.control.instruct', 's1', { text: ' ' }, { capture: 'redacted' });
    c.send(cmd);
    const full = await c.event((e) => e.cause === cmd.id);
    const gated = await meta.event((e) => e.cause === cmd.id);
    expect(full.data).toEqual({ reason: 'invalid', detail: 'the instruction text is empty' });
    expect(gated.data).toEqual({ reason: 'invalid' });
  });

  it('keeps instructions on ineligible moments and delivers at the next eligible one', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 's1');
    await instructAndAck(c, 's1', 'wait for a context moment');
    const stop = await cc(d, 'Stop', 's1', { stop_hook_active: false });
    expect(stop.json).toEqual({});
    const subagent = await cc(d, 'PreToolUse', 's1', { tool_name: 'Bash', tool_input: {}, tool_use_id: 't1', agent_id: 'sub-1' });
    expect(subagent.json).toEqual({});
    const next = await cc(d, 'PreToolUse', 's1', { tool_name: 'Bash', tool_input: {}, tool_use_id: 't2' });
    expect(next.json).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'wait for a context moment' } });
  });

  it('never mixes steering into a held permission reply', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 's1', {}, { instruct: true, permissions: true });
    await instructAndAck(c, 's1', 'not in the decision');
    const held = cc(d, 'PermissionRequest', 's1', { tool_name: 'Bash', tool_input: { command: 'ls' } }, { instruct: true, permissions: true });
    const request = await c.event((e) => e.type === 'attention.requested');
    c.send(command('control.attention.respond', 's1', { answer: { option: 'allow' } }, { subject: request.id, cause: request.id }));
    const reply = await held;
    expect(reply.json).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const after = await cc(d, 'PostToolUse', 's1', { tool_name: 'Bash', tool_input: {}, tool_response: {}, tool_use_id: 'x' });
    expect(after.json).toMatchObject({ hookSpecificOutput: { additionalContext: 'not in the decision' } });
  });

  it('delivers a Hermes instruction on pre_llm_call as {"context": ...}', async () => {
    const { d, c } = await setup();
    const hermes = (event: string, extra: Record<string, unknown> = {}) =>
      postHook(
        d.url,
        d.daemon.tokens.hook,
        'hermes',
        { hook_event_name: event, tool_name: null, tool_input: null, session_id: 'h1', cwd: '/p', extra: { telemetry_schema_version: 'hermes.observer.v1', ...extra } },
        { instruct: true },
      );
    await hermes('on_session_start', { platform: 'cli' });
    await instructAndAck(c, 'h1', 'mind the tests', 'hermes');
    const reply = await hermes('pre_llm_call', { turn_id: 'h1:t1', user_message: 'go', is_first_turn: true });
    expect(reply.json).toEqual({ context: 'mind the tests' });
  });
});

describe('drops', () => {
  it('drops queued instructions when the session ends and takes the session off the roster', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 's1');
    const a = await instructAndAck(c, 's1', 'a');
    const b = await instructAndAck(c, 's1', 'b');
    const end = await cc(d, 'SessionEnd', 's1', { reason: 'prompt_input_exit' });
    expect(end.json).toEqual({});
    const ended = await c.event((e) => e.type === 'session.ended');
    const dropped = c.events().filter((e) => e.type === 'x.claude-code.instruction.dropped');
    expect(dropped.map((e) => [e.cause, (e.data as { reason: string }).reason])).toEqual([
      [a.id, 'session-ended'],
      [b.id, 'session-ended'],
    ]);
    expect(dropped.every((e) => (e.seq as number) < (ended.seq as number))).toBe(true);
    expect((await c.roster()).some((e) => e.session === 's1')).toBe(false);
    const audit = (await api(d, 'GET', '/api/audit?action=instruct.dropped')).json as { total: number };
    expect(audit.total).toBe(2);
  });

  it('drops everything queued with steering-disabled when the kill switch turns off, and nacks new commands unsupported', async () => {
    const { d, c } = await setup();
    await cc(d, 'SessionStart', 's1');
    const a = await instructAndAck(c, 's1', 'queued');
    await api(d, 'PUT', '/api/steering', { enabled: false, surface: 'tray' });
    const dropped = await c.event((e) => e.type === 'x.claude-code.instruction.dropped');
    expect(dropped).toMatchObject({ cause: a.id, data: { reason: 'steering-disabled' } });
    const cmd = command('x.claude-code.control.instruct', 's1', { text: 'now?' });
    c.send(cmd);
    const refusal = await c.next((f) => f.type === 'error' && f.cause === cmd.id);
    expect(refusal.code).toBe('unsupported');
    const flips = (await api(d, 'GET', '/api/audit?action=steering.disabled')).json as { rows: { surface: string; actor: string }[] };
    expect(flips.rows[0]).toMatchObject({ surface: 'tray', actor: 'operator' });
    const reply = await cc(d, 'UserPromptSubmit', 's1', { prompt: 'x' });
    expect(reply.json).toEqual({});
  });

  it('keeps a Codex instruction past the idle expiry (no session-end moment) and delivers it at its next UserPromptSubmit', async () => {
    const clock = new TestClock();
    const { d, c } = await setup({ clock });
    const codex = (event: string, extra: Record<string, unknown> = {}) =>
      postHook(d.url, d.daemon.tokens.hook, 'codex', { hook_event_name: event, session_id: 'c1', cwd: '/p', ...extra }, { instruct: true });
    await codex('SessionStart', { source: 'startup', model: 'm' });
    const cmd = await instructAndAck(c, 'c1', 'still here', 'codex');
    clock.advance(3 * 30 * 60_000);
    d.parts.sweep();
    const sessions = (await api(d, 'GET', '/api/sessions')).json as { session: string; state: string }[];
    expect(sessions.find((s) => s.session === 'c1')?.state).toBe('idle');
    const fates = (await api(d, 'GET', '/api/instructions?session=c1')).json as { commandId: string; state: string }[];
    expect(fates.map((i) => [i.commandId, i.state])).toEqual([[cmd.id, 'queued']]);
    const reply = await codex('UserPromptSubmit', { prompt: 'back again' });
    expect(JSON.stringify(reply.json)).toContain('still here');
    const delivered = await c.event((e) => e.type === 'x.codex.instruction.delivered');
    expect(delivered).toMatchObject({ cause: cmd.id, data: { queued_ms: 3 * 30 * 60_000 } });
    expect(c.events().some((e) => e.type === 'x.codex.instruction.dropped')).toBe(false);
  });
});

describe('memory of idle sessions', () => {
  it('lets go of an idle session that never sent its end (claim and emitter state), and declares it again when it returns', async () => {
    const clock = new TestClock();
    const { d, c } = await setup({ clock });
    await cc(d, 'SessionStart', 'quiet');
    await cc(d, 'UserPromptSubmit', 'quiet');
    const before = (await c.event((e) => e.session === 'quiet' && e.type === 'run.started')).seq as number;
    expect((await c.roster()).some((e) => e.session === 'quiet')).toBe(true);
    clock.advance(30 * 60_000);
    d.parts.sweep();
    // Claude Code has a session-end moment, but a session may never send it: the claim goes anyway.
    expect((await c.roster()).some((e) => e.session === 'quiet')).toBe(false);
    expect(d.parts.emitters.get('claude-code')?.tracked).toBe(0);
    await cc(d, 'UserPromptSubmit', 'quiet');
    expect((await c.roster()).find((e) => e.session === 'quiet')?.control).toMatchObject({ accepts: ['x.claude-code.control.instruct'] });
    // Positions resume after the stored ones: none is reused.
    const after = (await c.event((e) => e.session === 'quiet' && (e.seq as number) > before && e.type === 'run.started')).seq as number;
    expect(after).toBeGreaterThan(before);
  });
});

describe('restart', () => {
  it('keeps the queue across a daemon restart, starts a new epoch, and delivers on the next hook', async () => {
    const { d: first, c } = await setup();
    await cc(first, 'SessionStart', 's1');
    const cmd = await instructAndAck(c, 's1', 'after the restart');
    const started = c.events().find((e) => e.type === 'session.started') as AepEvent;
    c.close();
    const dataDir = first.dataDir;
    await first.close();
    d = await startHooksDaemon({ dataDir, clock: new TestClock() });
    const c2 = await Consumer.open(d.url, d.daemon.tokens.operator);
    consumers.push(c2);
    expect(await accepts(c2, 's1')).toEqual(['x.claude-code.control.instruct']);
    const reply = await cc(d, 'UserPromptSubmit', 's1', { prompt: 'back' });
    expect(reply.json).toMatchObject({ hookSpecificOutput: { additionalContext: 'after the restart' } });
    const delivered = await c2.event((e) => e.type === 'x.claude-code.instruction.delivered');
    expect(delivered.cause).toBe(cmd.id);
    expect(delivered.epoch).toBe((started.epoch as number) + 1);
  });
});
