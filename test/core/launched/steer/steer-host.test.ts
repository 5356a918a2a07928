/** Mid-turn steering end to end: a real daemon, the mock ACP agent's steer modes, the AEP socket, /api, SQLite. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateStream } from '../../../../main/core/aep/stream-checker';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from '../agents-harness';

type Json = Record<string, unknown>;
let d: AgentsDaemon | null = null;
let c: Consumer | null = null;
afterEach(async () => {
  c?.close();
  c = null;
  if (d) {
    await d.close();
    removeAgentsDir(d.dataDir);
  }
  d = null;
});

const cwd = mkdtempSync(join(tmpdir(), 'aep-steer-cwd-'));
const terminalTypes = ['run.finished', 'run.failed', 'run.cancelled'];

async function setUp(
  agent: string,
  args: string[],
  midTurn = true,
): Promise<{ session: string; log: string }> {
  d = await startAgentsDaemon();
  c = await Consumer.connect(d.url, d.daemon.tokens.operator);
  d.daemon.context.settings.set({ 'features.steering': true, 'features.midTurnSteering': midTurn });
  const log = join(cwd, `model-${Date.now()}-${Math.random().toString(36).slice(2)}.log`);
  d.mock(agent, `--model-log=${log}`, ...args);
  const res = await d.api<Json>('POST', '/api/launch', { agent, cwd, prompt: 'run the probe' });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const session = (res.json as { session: string }).session;
  await c.waitEvent((e) => e.session === session && e.type === 'tool.requested', 'the tool call');
  return { session, log };
}

const model = (log: string): Json[] =>
  readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Json);

const send = (agent: string, session: string, text: string, delivery = 'now') =>
  c!.command(`x.${agent}.control.send_input`, session, { text, delivery }, { capture: 'redacted' });

const settled = (agent: string, id: string) =>
  c!.waitEvent((e) => e.cause === id && e.type === `x.${agent}.input.settled`, `settled ${id}`);

/** Waits until the input's own run finished (the agent has seen and answered it). */
async function ran(id: string): Promise<void> {
  const own = await c!.waitEvent((e) => e.type === 'run.started' && e.cause === id, `run of ${id}`);
  await c!.waitEvent(
    (e) => terminalTypes.includes(String(e.type)) && e.run === own.run,
    `run end of ${id}`,
  );
}

const terminals = (session: string) =>
  c!.of(session).filter((e) => terminalTypes.includes(String(e.type)));

describe('mid-turn steering against the mock agent', () => {
  it('fold: Steered, the steer text reaches the model right after the tool result, one run.finished with the usage once', async () => {
    const { session, log } = await setUp('claude-code', [
      '--steer=fold',
      '--turn-delay=2500',
      '--warn-chunk',
    ]);
    const info = await d!.api<Json[]>('GET', '/api/launched');
    expect(info.json.find((s) => s.session === session)?.steer).toMatchObject({
      supports_steering: true,
      badge: 'delivered now',
    });
    const id = send('claude-code', session, 'STEER-MARKER');
    expect(await settled('claude-code', id)).toMatchObject({
      data: { outcome: 'steered', delivery: 'now', mechanism: 'concurrent-prompt' },
    });
    const finished = await c!.waitEvent(
      (e) => e.session === session && e.type === 'run.finished',
      'run end',
    );
    expect(finished).toMatchObject({
      data: { 'gen_ai.usage.input_tokens': 2, 'gen_ai.usage.output_tokens': 4 },
    });
    await d!.host.session(session)?.flushed();
    expect(terminals(session)).toHaveLength(1);
    expect(c!.of(session).filter((e) => e.type === 'run.started')).toHaveLength(1);
    expect(model(log).find((m) => m.afterToolResult)).toMatchObject({ steers: ['STEER-MARKER'] });
    expect(validateStream(c!.of(session) as never).ok).toBe(true);
    const inputs = await d!.api<Json[]>(
      'GET',
      `/api/inputs?session=${encodeURIComponent(session)}`,
    );
    expect(inputs.json.find((r) => r.commandId === id)).toMatchObject({
      state: 'settled',
      outcome: 'steered',
      mechanism: 'concurrent-prompt',
      run: finished.run,
    });
    expect(d!.daemon.context.audit.query({ action: 'input.steer.settled' }).rows[0]).toMatchObject({
      commandId: id,
      outcome: 'steered',
    });
  });

  it('defer: the agent runs it as its own turn: Deferred, two runs, both answers in submission order, no error', async () => {
    const { session } = await setUp('claude-code', ['--steer=defer', '--turn-delay=400']);
    const id = send('claude-code', session, 'LATER');
    expect(await settled('claude-code', id)).toMatchObject({ data: { outcome: 'deferred' } });
    await c!.waitEvent(
      (e) =>
        e.session === session &&
        e.type === 'run.finished' &&
        c!.of(session).filter((x) => x.type === 'run.finished').length === 2,
      'second run end',
    );
    const runs = c!.of(session).filter((e) => e.type === 'run.started');
    expect(runs).toHaveLength(2);
    expect(runs[1].cause).toBe(id);
    expect(terminals(session).map((e) => e.type)).toEqual(['run.finished', 'run.finished']);
    expect(terminals(session).map((e) => e.run)).toEqual(runs.map((r) => r.run));
    expect(c!.of(session).some((e) => e.severity === 'error')).toBe(false);
  });

  it('an agent that advertises nothing (preempting) is never sent a concurrent prompt: the message queues and says why', async () => {
    const { session, log } = await setUp('qwen-code', ['--steer=preempt', '--turn-delay=400']);
    const info = await d!.api<Json[]>('GET', '/api/launched');
    expect(info.json.find((s) => s.session === session)?.steer).toMatchObject({
      supports_steering: false,
      badge: 'queue only',
    });
    const id = send('qwen-code', session, 'NOT-CONCURRENT');
    expect(
      await c!.waitEvent(
        (e) => e.cause === id && e.type === 'x.qwen-code.input.admitted',
        'admitted',
      ),
    ).toMatchObject({
      data: { action: 'queue', reason: 'the agent advertised no mid-turn input' },
    });
    expect(await settled('qwen-code', id)).toMatchObject({ data: { outcome: 'prompted' } });
    await c!.waitEvent(
      (e) =>
        e.session === session &&
        e.type === 'run.finished' &&
        c!.of(session).filter((x) => x.type === 'run.finished').length === 2,
      'both runs',
    );
    expect(model(log).filter((m) => m.request === 'concurrent-prompt')).toEqual([]);
    expect(terminals(session).map((e) => e.type)).toEqual(['run.finished', 'run.finished']);
  });

  it('toggle off: a capable session queues the message (next turn), and the badge says so', async () => {
    const { session, log } = await setUp(
      'claude-code',
      ['--steer=fold', '--turn-delay=400'],
      false,
    );
    const info = await d!.api<Json[]>('GET', '/api/launched');
    expect(info.json.find((s) => s.session === session)?.steer).toMatchObject({
      supports_steering: false,
      badge: 'next turn',
      reason: 'mid-turn steering is off',
    });
    const id = send('claude-code', session, 'QUEUED');
    expect(
      await c!.waitEvent(
        (e) => e.cause === id && e.type === 'x.claude-code.input.admitted',
        'admitted',
      ),
    ).toMatchObject({ data: { reason: 'mid-turn steering is off' } });
    expect(await settled('claude-code', id)).toMatchObject({ data: { outcome: 'prompted' } });
    expect(model(log).filter((m) => m.request === 'concurrent-prompt')).toEqual([]);
  });

  it('cancel during a steer ends both turns once, releases the gate, and the session takes the next prompt', async () => {
    const { session } = await setUp('claude-code', ['--steer=fold', '--turn-delay=3000']);
    const id = send('claude-code', session, 'STEER-THEN-CANCEL');
    await c!.waitEvent(
      (e) => e.cause === id && e.type === 'x.claude-code.input.admitted',
      'admitted',
    );
    const cancel = c!.command('control.cancel', session, { scope: 'run' });
    expect(await settled('claude-code', id)).toMatchObject({ data: { outcome: 'cancelled' } });
    expect(
      await c!.waitEvent((e) => e.session === session && e.type === 'run.cancelled', 'cancelled'),
    ).toMatchObject({ cause: cancel });
    const next = send('claude-code', session, 'after cancel', 'queue');
    expect(await settled('claude-code', next)).toMatchObject({ data: { outcome: 'prompted' } });
    await c!.waitEvent((e) => e.session === session && e.type === 'run.finished', 'next run end');
    expect(terminals(session).map((e) => e.type)).toEqual(['run.cancelled', 'run.finished']);
  });

  it('the agent dying mid-steer fails the steer like any in-flight prompt', async () => {
    const { session } = await setUp('claude-code', ['--steer=fold', '--turn-delay=5000']);
    const id = send('claude-code', session, 'STEER-THEN-DIE');
    await c!.waitEvent(
      (e) => e.cause === id && e.type === 'x.claude-code.input.admitted',
      'admitted',
    );
    await new Promise((r) => setTimeout(r, 100));
    process.kill(d!.host.session(session)?.driver.pid as number, 'SIGKILL');
    expect(await settled('claude-code', id)).toMatchObject({ data: { outcome: 'failed' } });
    await c!.waitEvent((e) => e.session === session && e.type === 'session.ended', 'ended');
  });

  it('a refused concurrent prompt is reported as queued (deferred) and runs as the next turn, never an error', async () => {
    const { session, log } = await setUp('claude-code', ['--steer=reject', '--turn-delay=400']);
    const id = send('claude-code', session, 'REFUSED');
    expect(await settled('claude-code', id)).toMatchObject({ data: { outcome: 'deferred' } });
    const own = await c!.waitEvent(
      (e) => e.type === 'run.started' && e.cause === id,
      'its own run',
    );
    await c!.waitEvent((e) => e.type === 'run.finished' && e.run === own.run, 'its own run end');
    expect(
      model(log)
        .filter((m) => m.prompt === 'REFUSED')
        .map((m) => m.request),
    ).toEqual(['concurrent-prompt', 'prompt']);
    expect(c!.of(session).some((e) => e.severity === 'error')).toBe(false);
  });

  it('native _session/steering: injected → Steered with one run', async () => {
    // The agent slot does not matter: the mechanism comes from what the agent advertises.
    const { session, log } = await setUp('gemini-cli', ['--steer=native', '--turn-delay=600']);
    const id = send('gemini-cli', session, 'NATIVE-STEER');
    expect(await settled('gemini-cli', id)).toMatchObject({
      data: { outcome: 'steered', mechanism: 'session-steering' },
    });
    await c!.waitEvent((e) => e.session === session && e.type === 'run.finished', 'run end');
    expect(model(log).find((m) => m.afterToolResult)).toMatchObject({ steers: ['NATIVE-STEER'] });
  });

  it('the pending list: queued messages are edited, reordered and withdrawn before they are sent', async () => {
    const { session, log } = await setUp('qwen-code', ['--steer=preempt', '--turn-delay=1500']);
    const a = send('qwen-code', session, 'first queued', 'queue');
    const b = send('qwen-code', session, 'second queued', 'queue');
    const x = send('qwen-code', session, 'withdraw me', 'queue');
    await c!.waitEvent(
      (e) => e.cause === x && e.type === 'x.qwen-code.input.queued',
      'third queued',
    );
    const pending = await d!.api<Json>(
      'GET',
      `/api/pending?session=${encodeURIComponent(session)}`,
    );
    expect((pending.json.items as Json[]).map((i) => i.commandId)).toEqual([a, b, x]);
    expect(
      (await d!.api('POST', '/api/pending/edit', { session, commandId: b, text: 'second, edited' }))
        .status,
    ).toBe(200);
    expect(
      (await d!.api('POST', '/api/pending/reorder', { session, order: [b, a, x] })).status,
    ).toBe(200);
    expect((await d!.api('POST', '/api/pending/withdraw', { session, commandId: x })).status).toBe(
      200,
    );
    expect(await settled('qwen-code', x)).toMatchObject({
      data: { outcome: 'dropped', reason: 'withdrawn' },
    });
    expect((await d!.api('POST', '/api/pending/withdraw', { session, commandId: x })).status).toBe(
      409,
    );
    await ran(a);
    const prompts = model(log)
      .filter((m) => m.request === 'prompt')
      .map((m) => m.prompt);
    expect(prompts).toEqual(['run the probe', 'second, edited', 'first queued']);
    expect(d!.daemon.context.audit.query({ action: 'input.withdrawn' }).rows).toHaveLength(1);
    // Every queue change is on the stream, in the order it happened, cause-linked to its message.
    const changes = c!
      .of(session)
      .filter((e) => ['x.qwen-code.input.edited', 'x.qwen-code.input.reordered', 'x.qwen-code.input.dropped'].includes(String(e.type)));
    expect(changes.map((e) => [e.type, e.cause])).toEqual([
      ['x.qwen-code.input.edited', b],
      ['x.qwen-code.input.reordered', b],
      ['x.qwen-code.input.dropped', x],
    ]);
    expect(changes[0]).toMatchObject({ capture: 'redacted', data: { text: 'second, edited', edits: 1 } });
    expect(typeof (changes[0].data as Json).text_digest).toBe('string');
    expect(changes[1]).toMatchObject({ data: { order: [b, a, x] } });
    expect(changes[2]).toMatchObject({ data: { reason: 'withdrawn' } });
  });

  it('an edit on the stream follows the capture ceiling: at metadata its text is absent, its digest stays', async () => {
    const { session } = await setUp('qwen-code', ['--steer=preempt', '--turn-delay=1500']);
    d!.daemon.context.settings.set({ 'capture.ceiling': 'metadata' });
    const a = send('qwen-code', session, 'queued secret', 'queue');
    await c!.waitEvent((e) => e.cause === a && e.type === 'x.qwen-code.input.queued', 'queued');
    expect((await d!.api('POST', '/api/pending/edit', { session, commandId: a, text: 'edited secret' })).status).toBe(200);
    const edited = await c!.waitEvent((e) => e.cause === a && e.type === 'x.qwen-code.input.edited', 'edited');
    expect(edited).toMatchObject({ capture: 'metadata', data: { edits: 1 } });
    expect(JSON.stringify(edited)).not.toContain('edited secret');
  });

  it('Stop (control.cancel) holds the queue; the next send of the operator goes first and lifts the hold', async () => {
    const { session, log } = await setUp('qwen-code', ['--steer=preempt', '--turn-delay=3000']);
    const queued = send('qwen-code', session, 'was queued', 'queue');
    await c!.waitEvent((e) => e.cause === queued && e.type === 'x.qwen-code.input.queued', 'queued');
    const stop = c!.command('control.cancel', session, { scope: 'run' });
    expect(await c!.waitEvent((e) => e.session === session && e.type === 'run.cancelled', 'cancelled')).toMatchObject({ cause: stop });
    expect(c!.of(session).find((e) => e.type === 'x.qwen-code.input.queue_paused')).toMatchObject({ cause: stop, data: { reason: 'stop', queued: 1 } });
    const pending = await d!.api<Json>('GET', `/api/pending?session=${encodeURIComponent(session)}`);
    expect(pending.json).toMatchObject({ paused: { cause: stop }, items: [{ commandId: queued }] });
    const now = send('qwen-code', session, 'after the stop', 'queue');
    await ran(queued);
    expect(model(log).filter((m) => m.request === 'prompt').map((m) => m.prompt)).toEqual(['run the probe', 'after the stop', 'was queued']);
    expect(c!.of(session).find((e) => e.type === 'x.qwen-code.input.queue_resumed')).toMatchObject({ cause: now, data: { by: 'send' } });
    expect(d!.daemon.context.audit.query({ action: 'input.queue.paused' }).rows).toHaveLength(1);
  });

  it('stop and send: cancels the running turn, then the message goes first', async () => {
    const { session, log } = await setUp('qwen-code', ['--steer=preempt', '--turn-delay=3000']);
    const queued = send('qwen-code', session, 'was queued', 'queue');
    await c!.waitEvent(
      (e) => e.cause === queued && e.type === 'x.qwen-code.input.queued',
      'queued',
    );
    const stop = send('qwen-code', session, 'stop and do this', 'stop');
    expect(
      await c!.waitEvent((e) => e.session === session && e.type === 'run.cancelled', 'cancelled'),
    ).toMatchObject({ cause: stop });
    await ran(queued);
    expect(
      model(log)
        .filter((m) => m.request === 'prompt')
        .map((m) => m.prompt),
    ).toEqual(['run the probe', 'stop and do this', 'was queued']);
  });
});
