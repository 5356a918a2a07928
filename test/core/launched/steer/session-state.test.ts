/**
 * The pushed session state (`x.{agent}.session.state`) and the steer machine the code runs, end to
 * end against the mock ACP agent: capability and steer state arrive on the stream as they change
 * (no polling), a fold walks none → offered → sent → folded → none, a toggle flip is pushed at
 * once, and a connection lost mid-steer fails the steer and leaves the session resumable
 * (session/load) where the agent advertised loadSession, promptable again once resumed; else it
 * ends with the reason.
 */
import { mkdtempSync } from 'node:fs';
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

const cwd = mkdtempSync(join(tmpdir(), 'aep-state-cwd-'));
const STATE = 'x.claude-code.session.state';

async function setUp(args: string[]): Promise<string> {
  d = await startAgentsDaemon();
  c = await Consumer.connect(d.url, d.daemon.tokens.operator);
  d.daemon.context.settings.set({ 'features.steering': true, 'features.midTurnSteering': true });
  d.mock('claude-code', ...args);
  const res = await d.api<Json>('POST', '/api/launch', { agent: 'claude-code', cwd, prompt: 'run the probe' });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const session = (res.json as { session: string }).session;
  await c.waitEvent((e) => e.session === session && e.type === 'tool.requested', 'the tool call');
  return session;
}

const states = (session: string): Json[] => c!.of(session).filter((e) => e.type === STATE).map((e) => e.data as Json);
const steer = (session: string, text: string) => c!.command('x.claude-code.control.send_input', session, { text, delivery: 'now' }, { capture: 'redacted' });
const settled = (id: string) => c!.waitEvent((e) => e.cause === id && e.type === 'x.claude-code.input.settled', `settled ${id}`);

describe('the pushed session state and the steer machine', () => {
  it('a fold walks the spec machine none → offered → sent → folded → none, each step pushed with supports_steering', async () => {
    const session = await setUp(['--steer=fold', '--turn-delay=1500']);
    await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).steer === 'offered', 'offered');
    const id = steer(session, 'STEER');
    expect(await settled(id)).toMatchObject({ data: { outcome: 'steered' } });
    const end = await c!.waitEvent((e) => e.session === session && e.type === 'run.finished', 'run end');
    await c!.waitEvent((e) => e.session === session && e.type === STATE && Number(e.seq) > Number(end.seq) && (e.data as Json).steer === 'none', 'back to none');
    const steps = states(session).map((s) => `${String(s.state)}/${String(s.steer)}`);
    const compact = steps.filter((s, i) => s !== steps[i - 1]);
    expect(compact, JSON.stringify(states(session))).toEqual(['idle/none', 'generating/offered', 'generating/sent', 'generating/folded', 'idle/none']);
    expect(states(session)[0]).toMatchObject({ supports_steering: true, mode: 'mid-turn', mechanism: 'concurrent-prompt' });
    // Illegal steps never happened: the machine validated every one.
    expect(d!.daemon.context.audit.query({ action: 'input.steer.illegal' }).rows).toHaveLength(0);
    expect(validateStream(c!.of(session) as never).ok).toBe(true);
  });

  it('a second Send now while the folded steer’s turn still runs queues (at most one steer in flight)', async () => {
    const session = await setUp(['--steer=fold', '--turn-delay=1500']);
    await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).steer === 'offered', 'offered');
    const first = steer(session, 'ONE');
    await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).steer === 'sent', 'sent');
    const second = steer(session, 'TWO');
    expect(await c!.waitEvent((e) => e.cause === second && e.type === 'x.claude-code.input.admitted', 'admitted')).toMatchObject({ data: { action: 'queue', reason: 'a steer is already in flight' } });
    expect(await settled(first)).toMatchObject({ data: { outcome: 'steered' } });
    expect(await settled(second)).toMatchObject({ data: { outcome: 'prompted' } });
  });

  it('turning mid-turn steering off is pushed at once: supports_steering false, the offer retracted', async () => {
    const session = await setUp(['--steer=fold', '--turn-delay=1500']);
    await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).steer === 'offered', 'offered');
    d!.daemon.context.settings.set({ 'features.midTurnSteering': false });
    const off = await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).supports_steering === false, 'pushed off');
    expect(off.data).toMatchObject({ state: 'generating', steer: 'none', mode: 'next-turn' });
  });

  it('connection lost mid-steer: the steer fails, the session is resumable (loadSession) and promptable again after session/load', async () => {
    const session = await setUp(['--steer=fold', '--turn-delay=1500', '--crash-on-steer']);
    await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).steer === 'offered', 'offered');
    const id = steer(session, 'STEER');
    expect(await settled(id)).toMatchObject({ data: { outcome: 'failed' } });
    const lost = await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).state === 'resumable', 'resumable');
    expect(lost.data).toMatchObject({ steer: 'none', reason: 'agent exited with code 3' });
    expect(c!.of(session).find((e) => e.type === 'run.failed')).toMatchObject({ data: { reason: 'agent-exited' } });
    const listed = await d!.api<Json[]>('GET', '/api/launched');
    expect(listed.json.find((s) => s.session === session)).toMatchObject({ state: 'resumable', endReason: 'agent exited with code 3' });
    const resumed = await d!.api<Json>('POST', '/api/launched/resume', { session });
    expect(resumed.status, JSON.stringify(resumed.json)).toBe(200);
    await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).state === 'idle' && c!.of(session).filter((x) => x.type === 'session.started').length === 2, 'promptable again');
    // The companion sends no prompt of its own on resume (no retry, no replay of the failed steer).
    await d!.host.session(session)?.flushed();
    expect(c!.of(session).filter((e) => e.type === 'run.started')).toHaveLength(1);
    const next = c!.command('x.claude-code.control.send_input', session, { text: 'carry on', delivery: 'queue' }, { capture: 'redacted' });
    const started = await c!.waitEvent((e) => e.type === 'run.started' && e.cause === next, 'a new run');
    expect(await c!.waitEvent((e) => e.type === 'run.finished' && e.run === started.run, 'its end')).toMatchObject({ type: 'run.finished' });
  });

  it('connection lost where the agent cannot load sessions: ended, with the reason, on the stream', async () => {
    const session = await setUp(['--steer=fold', '--turn-delay=1500', '--crash-on-steer', '--no-load']);
    await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).steer === 'offered', 'offered');
    const id = steer(session, 'STEER');
    expect(await settled(id)).toMatchObject({ data: { outcome: 'failed' } });
    const ended = await c!.waitEvent((e) => e.session === session && e.type === STATE && (e.data as Json).state === 'ended', 'ended');
    expect(ended.data).toMatchObject({ steer: 'none', reason: 'agent exited with code 3', supports_steering: false });
  });
});
