/**
 * The hook intake through the real listener: a plain call is answered once durable and handled in
 * the next batch, at the time it came; whatever could see the difference (another request, a
 * WebSocket frame, a call that is not plain) has the waiting calls handled first.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { ccPayload, Consumer, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from './hooks-harness';

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

/** A daemon whose batches never start by themselves (the test says when). */
async function setup(clock = new TestClock()): Promise<{ d: HooksDaemon; c: Consumer; clock: TestClock }> {
  d = await startHooksDaemon({ clock, intakeWindowMs: 600_000 });
  const c = await Consumer.open(d.url, d.daemon.tokens.operator);
  consumers.push(c);
  return { d, c, clock };
}

const hook = (daemon: HooksDaemon, event: string, session: string, extra: Record<string, unknown> = {}, query: { instruct?: boolean } = {}) =>
  postHook(daemon.url, daemon.daemon.tokens.hook, 'claude-code', ccPayload(event, session, extra), query);

const bash = (id: string) => ({ tool_name: 'Bash', tool_input: { command: `echo ${id}` }, tool_use_id: id });

const ofSession = (c: Consumer, session: string): AepEvent[] => c.events().filter((e) => e.session === session);

describe('hook intake', () => {
  it('answers a plain call once it is taken, and handles it in the batch at the time it came', async () => {
    const { d, c, clock } = await setup();
    const came = clock.now;
    const answer = await hook(d, 'PreToolUse', 'quiet', bash('t1'));
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual({});
    const intake = d.parts.intake!;
    expect(intake.waiting).toBe(1);
    expect(ofSession(c, 'quiet')).toEqual([]);

    clock.advance(5_000);
    await intake.drain();
    const started = await c.event((e) => e.session === 'quiet' && e.type === 'tool.requested');
    expect(started.time).toBe(new Date(came).toISOString());
    expect(intake.waiting).toBe(0);
  });

  it('gives a taken call the events and session row the same call gets when handled at once', async () => {
    const { d, c } = await setup();
    const calls: [string, Record<string, unknown>][] = [
      ['SessionStart', { source: 'startup' }],
      ['UserPromptSubmit', { prompt: 'build it' }],
      ['PreToolUse', bash('t1')],
      ['PostToolUse', { ...bash('t1'), tool_response: { stdout: 'ok', exit_code: 0 } }],
      ['Stop', {}],
      ['SessionEnd', { reason: 'exit' }],
    ];
    for (const [event, extra] of calls) {
      // A Content-Length call is taken; the same call sent chunked goes through node:http, handled at once.
      await hook(d, event, 'taken', extra);
      await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload(event, 'direct', extra), { chunked: true });
    }
    await d.parts.intake!.drain(true);
    await c.event((e) => e.session === 'taken' && e.type === 'session.ended');
    await c.event((e) => e.session === 'direct' && e.type === 'session.ended');
    const shape = (session: string) =>
      ofSession(c, session).map(({ type, subject, seq, capture, data, run }) => ({ type, subject: subject === session ? '(session)' : subject, seq, capture, run: run === undefined ? undefined : typeof run, data }));
    expect(shape('taken').length).toBeGreaterThanOrEqual(calls.length);
    expect(shape('taken')).toEqual(shape('direct'));
    const res = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    const rows = (await res.json()) as { session: string; state: string }[];
    expect(rows.find((r) => r.session === 'taken')?.state).toBe('ended');
    expect(rows.find((r) => r.session === 'direct')?.state).toBe('ended');
  });

  it('handles the waiting calls before any other request is served', async () => {
    const { d } = await setup();
    await hook(d, 'SessionStart', 'listed');
    await hook(d, 'SessionEnd', 'listed', { reason: 'exit' });
    expect(d.parts.intake!.waiting).toBe(2);
    const res = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    const sessions = (await res.json()) as { session: string; state: string }[];
    // Both calls are handled, the end's session row included (it is written after the end's commit).
    expect(sessions.find((s) => s.session === 'listed')?.state).toBe('ended');
    expect(d.parts.intake!.waiting).toBe(0);
  });

  it('handles the waiting calls before a WebSocket frame', async () => {
    const { d, c } = await setup();
    await hook(d, 'SessionStart', 'framed');
    const roster = await c.roster();
    expect(roster.some((entry) => JSON.stringify(entry).includes('framed'))).toBe(true);
    expect(d.parts.intake!.waiting).toBe(0);
  });

  it('handles a call that is not plain after the calls taken before it, in order', async () => {
    const { d, c } = await setup();
    await hook(d, 'PreToolUse', 'ordered', bash('t1'));
    await hook(d, 'PostToolUse', 'ordered', { ...bash('t1'), tool_response: { stdout: 'ok' } });
    expect(d.parts.intake!.waiting).toBe(2);
    // An opted-in call: handled at once, after the two before it.
    const answer = await hook(d, 'PreToolUse', 'ordered', bash('t2'), { instruct: true });
    expect(answer.status).toBe(200);
    expect(d.parts.intake!.waiting).toBe(0);
    await c.event((e) => e.session === 'ordered' && e.type === 'tool.requested' && JSON.stringify(e.data).includes('t2'));
    const tools = ofSession(c, 'ordered')
      .filter((e) => e.type.startsWith('tool.'))
      .map((e) => `${e.type} ${JSON.stringify(e.data).includes('t2') ? 't2' : 't1'}`);
    expect(tools).toEqual(['tool.requested t1', 'tool.completed t1', 'tool.requested t2']);
    const seqs = ofSession(c, 'ordered').map((e) => e.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
  });

  it('never takes a call of a session that opted in, nor a payload that is not a hook call', async () => {
    const { d } = await setup();
    await hook(d, 'SessionStart', 'steered', {}, { instruct: true });
    // The opt-in sticks to the session: its later calls may carry instructions, so none is taken.
    expect((await hook(d, 'PreToolUse', 'steered', bash('t1'))).status).toBe(200);
    expect(d.parts.intake!.waiting).toBe(0);
    const bad = await postHook(d.url, d.daemon.tokens.hook, 'claude-code', { hook_event_name: 'PreToolUse' });
    expect(bad.status).toBe(400);
    const broken = await postHook(d.url, d.daemon.tokens.hook, 'claude-code', '{"hook_event_name":');
    expect(broken.status).toBe(400);
    expect(d.parts.intake!.waiting).toBe(0);
  });

  it('handles what is waiting when the daemon closes, and the next start finds it stored', async () => {
    const clock = new TestClock();
    d = await startHooksDaemon({ clock, intakeWindowMs: 600_000 });
    const dataDir = d.dataDir;
    await hook(d, 'SessionStart', 'kept');
    expect(d.parts.intake!.waiting).toBe(1);
    await d.close();
    d = await startHooksDaemon({ dataDir, clock, intakeWindowMs: 600_000 });
    expect(d.parts.intake!.waiting).toBe(0);
    const res = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    const sessions = (await res.json()) as { session: string }[];
    expect(sessions.map((s) => s.session)).toContain('kept');
  });
});
