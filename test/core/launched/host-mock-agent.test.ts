/** The launched-agents host against the mock ACP agent, through a real daemon, /api and the AEP socket. */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { validateStream } from '../../../main/core/aep/stream-checker';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from './agents-harness';

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

const cwd = mkdtempSync(join(tmpdir(), 'aep-agents-cwd-'));
const steering = (on: boolean) => d!.daemon.context.settings.set({ 'features.steering': on });

async function launch(mode: string[], prompt?: string, agent = 'qwen-code'): Promise<{ session: string; capabilities: Json }> {
  d!.mock(agent, ...mode);
  const res = await d!.api<Json>('POST', '/api/launch', { agent, cwd, ...(prompt === undefined ? {} : { prompt }) });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { session: string; capabilities: Json };
}

const terminal = (session: string) => (e: Json) => e.session === session && ['run.finished', 'run.failed', 'run.cancelled'].includes(String(e.type));

describe('launching and driving a mock ACP agent', () => {
  it('launches, runs the first prompt as one run with tool calls and usage, and lists the session as launched', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session, capabilities } = await launch([], 'fix the build');
    expect(capabilities).toMatchObject({ _meta: { mockMeta: true }, agentCapabilities: { loadSession: true, _meta: { mock: { mode: 'normal' } } } });
    const finished = await c.waitEvent(terminal(session), 'run end');
    expect(finished).toMatchObject({ type: 'run.finished', data: { stop_reason: 'end_turn', 'gen_ai.usage.input_tokens': 3, 'gen_ai.usage.output_tokens': 5 } });
    expect(c.types(session)).toEqual(expect.arrayContaining(['session.started', 'run.started', 'tool.requested', 'tool.completed', 'x.acp.usage.updated', 'run.finished']));
    const events = c.of(session);
    const started = events.find((e) => e.type === 'run.started') as Json;
    expect(events.filter((e) => e.run === started.run).length).toBeGreaterThanOrEqual(4);
    expect((events.find((e) => e.type === 'tool.completed') as Json).cause).toBe((events.find((e) => e.type === 'tool.requested') as Json).id);
    expect(validateStream(events as never).ok).toBe(true);
    const list = await d.api<Json[]>('GET', '/api/sessions');
    expect(list.json.find((s) => s.session === session)).toMatchObject({ origin: 'launched', cwd });
    const launched = await d.api<Json[]>('GET', '/api/launched');
    expect(launched.json[0]).toMatchObject({ session, agent: 'qwen-code', state: 'idle', agentInfo: { name: 'mock-acp-agent', version: '1.0.0' } });
  });

  it('refuses a missing cwd, an unknown agent and extra fields with 400', async () => {
    d = await startAgentsDaemon();
    expect((await d.api('POST', '/api/launch', { agent: 'qwen-code', cwd: join(cwd, 'nope') })).status).toBe(400);
    expect((await d.api('POST', '/api/launch', { agent: 'bash', cwd })).status).toBe(400);
    expect((await d.api('POST', '/api/launch', { agent: 'qwen-code', cwd, command: ['sh'] })).status).toBe(400);
  });

  it('send_input opens a turn when idle and queues visibly while generating; the kill switch refuses it', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const record = join(cwd, `record-${Date.now()}.log`);
    const { session } = await launch(['--turn-delay=400', `--record=${record}`], 'first');
    await c.waitEvent((e) => e.session === session && e.type === 'run.started', 'first run');
    // Kill switch off: the verb is not declared, so the relay refuses the command before the session sees it.
    const off = c.command('x.qwen-code.control.send_input', session, { text: 'second' }, { capture: 'redacted' });
    await c.waitFrame((f) => f.type === 'error' && f.cause === off, 'refusal');
    expect(((await c.roster()).entries as Json[]).find((e) => e.session === session)).toMatchObject({ control: { accepts: ['control.cancel', 'control.attention.respond'] } });
    steering(true);
    const roster = await c.roster();
    const entry = (roster.entries as Json[]).find((e) => e.session === session) as Json;
    expect((entry.control as Json).accepts).toEqual(expect.arrayContaining(['x.qwen-code.control.send_input', 'control.cancel', 'control.attention.respond']));
    const id = c.command('x.qwen-code.control.send_input', session, { text: 'second', delivery: 'queue' }, { capture: 'redacted' });
    expect(await c.ack(id)).toMatchObject({ type: 'control.accepted' });
    expect(await c.waitEvent((e) => e.cause === id && e.type === 'x.qwen-code.input.queued', 'queued')).toMatchObject({ data: { position: 1 } });
    const second = await c.waitEvent((e) => e.cause === id && e.type === 'run.started', 'second run');
    await c.waitEvent((e) => e.type === 'run.finished' && e.run === second.run, 'second run end');
    // The agent never saw a prompt while one was running.
    const prompts = readFileSync(record, 'utf8').split('\n').filter((l) => l.includes('session/prompt'));
    expect(prompts).toHaveLength(2);
    // A retry of the same command gets the recorded ack, byte-identically.
    const before = c.events.filter((e) => e.cause === id && e.type === 'control.accepted').length;
    c.command('x.qwen-code.control.send_input', session, { text: 'second' }, { capture: 'redacted' }, id);
    await c.waitEvent((e) => e.cause === id && e.type === 'control.accepted' && c!.events.filter((x) => x.cause === id && x.type === 'control.accepted').length > before, 'replayed ack');
    const acks = c.events.filter((e) => e.cause === id && e.type === 'control.accepted');
    expect(JSON.stringify(acks[1])).toBe(JSON.stringify(acks[0]));
    const audit = await d.api<{ rows: Json[] }>('GET', `/api/audit?session=${encodeURIComponent(session)}`);
    expect(audit.json.rows.map((r) => r.action)).toEqual(expect.arrayContaining(['agent.launch', 'input.accepted', 'input.submitted', 'input.retry']));
  });

  it('control.cancel stops the running turn: run.cancelled names the command', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--turn-delay=5000'], 'long turn');
    await c.waitEvent((e) => e.session === session && e.type === 'tool.completed', 'tool done');
    const id = c.command('control.cancel', session, { scope: 'run' });
    expect(await c.ack(id)).toMatchObject({ type: 'control.accepted' });
    expect(await c.waitEvent(terminal(session), 'cancelled')).toMatchObject({ type: 'run.cancelled', cause: id, data: { by: 'control' } });
    const idle = c.command('control.cancel', session, { scope: 'run' });
    expect(await c.ack(idle)).toMatchObject({ type: 'control.rejected', data: { reason: 'invalid' } });
    // scope=session ends the session, cause-linked.
    const whole = c.command('control.cancel', session, { scope: 'session' });
    expect(await c.ack(whole)).toMatchObject({ type: 'control.accepted' });
    expect(await c.waitEvent((e) => e.session === session && e.type === 'session.ended', 'ended')).toMatchObject({ cause: whole, data: { reason: 'normal' } });
  });

  it('a permission request is an answerable card: options verbatim, answered through control.attention.respond', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--mode=permission'], 'needs permission');
    const card = await c.waitEvent((e) => e.session === session && e.type === 'attention.requested', 'card');
    expect(card.data).toMatchObject({ kind: 'permission', respond_via: ['control'], options: [{ id: 'allow_once', label: 'Allow once' }, { id: 'reject_once', label: 'Reject' }] });
    // The card names the moment the hold gives up: permissions.holdMs (default 50 s) from when it was raised.
    const hold = d.daemon.context.settings.get('permissions.holdMs');
    const left = Date.parse(String((card.data as Json).expires_at)) - Date.parse(String(card.time));
    expect(left).toBeLessThanOrEqual(hold);
    expect(left).toBeGreaterThan(hold - 1_000);
    const bad = c.command('control.attention.respond', session, { answer: { option: 'allow' } }, { subject: card.id });
    expect(await c.ack(bad)).toMatchObject({ type: 'control.rejected', data: { reason: 'invalid' } });
    const id = c.command('control.attention.respond', session, { answer: { option: 'allow_once' } }, { subject: card.id });
    expect(await c.ack(id)).toMatchObject({ type: 'control.accepted' });
    expect(await c.waitEvent((e) => e.type === 'attention.answered' && e.cause === id, 'answered')).toMatchObject({ subject: card.id, data: { answer: { option: 'allow_once' } } });
    await c.waitEvent((e) => e.type === 'attention.resolved' && e.subject === card.id, 'resolved');
    expect(await c.waitEvent(terminal(session), 'run end')).toMatchObject({ type: 'run.finished' });
    expect(c.types(session)).toContain('tool.completed');
  });

  it('a permission request that is never answered times out honestly and the agent hears cancelled', async () => {
    d = await startAgentsDaemon();
    d.daemon.context.settings.set({ 'permissions.holdMs': 1_000 });
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--mode=permission'], 'needs permission');
    const card = await c.waitEvent((e) => e.session === session && e.type === 'attention.requested', 'card');
    await c.waitEvent((e) => e.type === 'attention.timeout' && e.subject === card.id, 'timeout');
    expect(await c.waitEvent(terminal(session), 'run end')).toMatchObject({ type: 'run.cancelled' });
  });

  it('an agent dying mid-turn fails the run and ends the session with the reason (no loadSession: it cannot be resumed)', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--mode=crash', '--no-load'], 'crash please');
    const failed = await c.waitEvent(terminal(session), 'run end');
    expect(failed).toMatchObject({ type: 'run.failed', data: { reason: 'agent-exited' } });
    expect(await c.waitEvent((e) => e.session === session && e.type === 'session.ended', 'ended')).toMatchObject({ data: { reason: 'error' } });
    // The tool call the agent died in is settled, failed with the reason, before the run and caused by its request.
    const events = c.of(session);
    const requested = events.find((e) => e.type === 'tool.requested') as Json;
    const settled = events.filter((e) => e.type === 'tool.completed' || e.type === 'tool.failed');
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({
      type: 'tool.failed',
      subject: requested.subject,
      run: failed.run,
      cause: requested.id,
      data: { tool: { name: 'echo mock', call_id: requested.subject }, error: { type: 'agent-exited', message: 'agent exited with code 3' } },
    });
    expect(events.indexOf(settled[0])).toBeLessThan(events.indexOf(failed));
    const verdict = validateStream(events as never);
    expect(verdict.ok, verdict.ok ? '' : verdict.error.message).toBe(true);
    const launched = await d.api<Json[]>('GET', '/api/launched');
    expect(launched.json[0]).toMatchObject({ session, state: 'ended', endReason: 'agent exited with code 3' });
  });

  it('an agent quitting cleanly (code 0) mid-turn fails the run, agent-exited, never cancelled', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--mode=crash', '--exit-code=0'], 'quit please');
    const failed = await c.waitEvent(terminal(session), 'run end');
    expect(failed).toMatchObject({ type: 'run.failed', data: { reason: 'agent-exited' } });
    expect(await c.waitEvent((e) => e.session === session && e.type === 'session.ended', 'ended')).toMatchObject({ data: { reason: 'normal' } });
    const events = c.of(session);
    const settled = events.filter((e) => e.type === 'tool.failed');
    expect(settled).toHaveLength(1);
    expect(settled[0]).toMatchObject({ data: { error: { type: 'agent-exited' } } });
    expect(events.indexOf(settled[0])).toBeLessThan(events.indexOf(failed));
    expect(events.some((e) => e.type === 'run.cancelled')).toBe(false);
    const verdict = validateStream(events as never);
    expect(verdict.ok, verdict.ok ? '' : verdict.error.message).toBe(true);
  });

  it('ending a session on purpose with a tool call open settles the call before the cancelled run', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--tool-delay=30000'], 'long tool');
    const requested = await c.waitEvent((e) => e.session === session && e.type === 'tool.requested', 'tool');
    await d.api('POST', '/api/launched/end', { session });
    const cancelled = await c.waitEvent(terminal(session), 'run end');
    expect(cancelled).toMatchObject({ type: 'run.cancelled', data: { by: 'user' } });
    await c.waitEvent((e) => e.session === session && e.type === 'session.ended', 'ended');
    const events = c.of(session);
    const settled = events.find((e) => e.type === 'tool.failed' && e.subject === requested.subject) as Json;
    expect(settled).toMatchObject({ cause: requested.id, data: { error: { type: 'session-ended' } } });
    expect(events.indexOf(settled)).toBeLessThan(events.indexOf(cancelled));
    const verdict = validateStream(events as never);
    expect(verdict.ok, verdict.ok ? '' : verdict.error.message).toBe(true);
  });

  it('skips stdout lines that are not JSON-RPC and goes on', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--mode=garbage'], 'noisy');
    expect(await c.waitEvent(terminal(session), 'run end')).toMatchObject({ type: 'run.finished' });
  });

  it('waits for a slow initialize, and reports a hung one within the bound', async () => {
    d = await startAgentsDaemon({ requestTimeoutMs: 1_500 });
    await launch(['--mode=slow-init', '--init-delay=300']);
    d.mock('qwen-code', '--mode=hang-init');
    const hung = await d.api<Json>('POST', '/api/launch', { agent: 'qwen-code', cwd });
    expect(hung.status).toBe(502);
    expect(String(hung.json.detail)).toMatch(/did not answer initialize within 1500 ms/);
  });

  it('reports a turn the agent has gone silent on, and ending the session still ends the agent', async () => {
    d = await startAgentsDaemon({ turnSilenceMs: 300 });
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--mode=hang'], 'never answered');
    expect(await c.waitEvent((e) => e.session === session && e.type === 'x.acp.agent.hung', 'hung')).toMatchObject({ severity: 'warning', data: { method: 'session/prompt', after_ms: 300 } });
    const pid = d.host.session(session)?.driver.pid as number;
    await d.api('POST', '/api/launched/end', { session });
    expect(await c.waitEvent(terminal(session), 'run end')).toMatchObject({ type: 'run.cancelled', data: { by: 'user' } });
    await c.waitEvent((e) => e.session === session && e.type === 'session.ended', 'ended');
    expect(() => process.kill(pid, 0)).toThrow();
  });

  it('turning the kill switch off withdraws send_input and drops queued inputs with a reason', async () => {
    d = await startAgentsDaemon();
    steering(true);
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch(['--turn-delay=3000'], 'first');
    await c.waitEvent((e) => e.session === session && e.type === 'run.started', 'run');
    const id = c.command('x.qwen-code.control.send_input', session, { text: 'later' }, { capture: 'redacted' });
    await c.waitEvent((e) => e.cause === id && e.type === 'x.qwen-code.input.queued', 'queued');
    steering(false);
    expect(await c.waitEvent((e) => e.cause === id && e.type === 'x.qwen-code.input.dropped', 'dropped')).toMatchObject({ data: { reason: 'steering-disabled' } });
    const entry = ((await c.roster()).entries as Json[]).find((e) => e.session === session) as Json;
    expect((entry.control as Json).accepts).toEqual(['control.cancel', 'control.attention.respond']);
    await c.waitEvent(terminal(session), 'first run end');
    expect(c.events.some((e) => e.cause === id && e.type === 'run.started')).toBe(false);
  });

  it('ends a session on request with terminal events, and at daemon close ends the rest (resumable)', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const { session } = await launch([]);
    const ended = await d.api<Json>('POST', '/api/launched/end', { session });
    expect(ended.json).toMatchObject({ session, state: 'ended', endReason: 'ended by the operator' });
    expect(await c.waitEvent((e) => e.session === session && e.type === 'session.ended', 'ended')).toMatchObject({ data: { reason: 'normal' } });
    const other = await launch(['--turn-delay=10000'], 'long');
    await c.waitEvent((e) => e.session === other.session && e.type === 'run.started', 'run');
    const dataDir = d.dataDir;
    await d.close();
    d = await startAgentsDaemon({}, dataDir);
    const rows = await d.api<Json[]>('GET', '/api/launched');
    expect(rows.json.find((r) => r.session === other.session)).toMatchObject({ state: 'resumable', endReason: 'daemon shutdown' });
    const audit = await d.api<{ rows: Json[] }>('GET', `/api/audit?session=${encodeURIComponent(other.session)}`);
    expect(audit.json.rows.some((r) => r.action === 'agent.end' && (r.detail as Json).reason === 'daemon shutdown')).toBe(true);
    const resumed = await d.api<Json>('POST', '/api/launched/resume', { session: other.session });
    expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
    expect(resumed.json).toMatchObject({ session: other.session });
  });
});
