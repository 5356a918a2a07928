/**
 * Background work across a steer hand-off, against the mock ACP agent's fold and defer modes with
 * `--background`: a tool call started by the first run and settled after the hand-off stays that
 * run's, and model output that arrives with no prompt in flight is its own event
 * (`x.acp.agent.output`), never part of the next run's summary or usage.
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

const cwd = mkdtempSync(join(tmpdir(), 'aep-bg-cwd-'));

async function setUp(kind: 'fold' | 'defer'): Promise<string> {
  d = await startAgentsDaemon();
  c = await Consumer.connect(d.url, d.daemon.tokens.operator);
  d.daemon.context.settings.set({ 'features.steering': true, 'features.midTurnSteering': true, 'capture.ceiling': 'full' });
  d.mock('claude-code', `--steer=${kind}`, '--turn-delay=600', '--background');
  const res = await d.api<Json>('POST', '/api/launch', { agent: 'claude-code', cwd, prompt: 'start the job' });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  const session = (res.json as { session: string }).session;
  await c.waitEvent((e) => e.session === session && e.type === 'tool.requested' && callOf(e).startsWith('bg-'), 'the background call');
  return session;
}

const steer = (session: string, text: string) => c!.command('x.claude-code.control.send_input', session, { text, delivery: 'now' }, { capture: 'redacted' });
const callOf = (e: Json): string => String(((e.data as Json | undefined)?.['tool'] as Json | undefined)?.['call_id'] ?? '');

/** Asserts what both modes share once the background output arrived; returns the first run. */
async function backgroundStaysAttributed(session: string): Promise<void> {
  const output = await c!.waitEvent((e) => e.session === session && e.type === 'x.acp.agent.output', 'output with no prompt in flight');
  expect(output.run).toBeUndefined();
  expect(output.data).toMatchObject({ chars: 'background job finished'.length, in_flight: false });
  const events = c!.of(session);
  const firstRun = events.find((e) => e.type === 'run.started')?.run;
  const requested = events.find((e) => e.type === 'tool.requested' && callOf(e).startsWith('bg-')) as Json;
  const completed = events.find((e) => e.type === 'tool.completed' && callOf(e).startsWith('bg-')) as Json;
  expect(requested.run).toBe(firstRun);
  // Settled after the hand-off, still the run that started it, caused by its request.
  expect(completed.run).toBe(firstRun);
  expect(completed.cause).toBe(requested.id);

  // The next run's summary and usage carry nothing of the background output.
  const next = c!.command('x.claude-code.control.send_input', session, { text: 'next task', delivery: 'queue' }, { capture: 'redacted' });
  const started = await c!.waitEvent((e) => e.type === 'run.started' && e.cause === next, 'next run');
  const finished = await c!.waitEvent((e) => e.type === 'run.finished' && e.run === started.run, 'next run end');
  expect(String((finished.data as Json).summary)).not.toContain('background job finished');
  expect((finished.data as Json)['gen_ai.usage.input_tokens']).toBe(2);
  await d!.host.session(session)?.flushed();
  expect(validateStream(c!.of(session) as never).ok).toBe(true);
  expect(c!.of(session).some((e) => e.severity === 'error')).toBe(false);
}

describe('background work across a steer hand-off', () => {
  it('defer: the predecessor’s background call completes during the deferred turn and stays the predecessor’s', async () => {
    const session = await setUp('defer');
    const id = steer(session, 'LATER');
    expect(await c!.waitEvent((e) => e.cause === id && e.type === 'x.claude-code.input.settled', 'settled')).toMatchObject({ data: { outcome: 'deferred' } });
    const own = await c!.waitEvent((e) => e.type === 'run.started' && e.cause === id, 'deferred run');
    await backgroundStaysAttributed(session);
    const completed = c!.of(session).find((e) => e.type === 'tool.completed' && callOf(e).startsWith('bg-')) as Json;
    // It arrived while the deferred turn ran, yet it is not that turn's.
    expect(completed.run).not.toBe(own.run);
    const ownEnd = c!.of(session).find((e) => e.type === 'run.finished' && e.run === own.run) as Json;
    expect(Number(completed.seq)).toBeLessThan(Number(ownEnd.seq));
  });

  it('fold: the background call outlives the folded run and still reports under it', async () => {
    const session = await setUp('fold');
    const id = steer(session, 'STEER');
    expect(await c!.waitEvent((e) => e.cause === id && e.type === 'x.claude-code.input.settled', 'settled')).toMatchObject({ data: { outcome: 'steered' } });
    await backgroundStaysAttributed(session);
    const events = c!.of(session);
    const end = events.find((e) => e.type === 'run.finished') as Json;
    const completed = events.find((e) => e.type === 'tool.completed' && callOf(e).startsWith('bg-')) as Json;
    // Reported after its run ended: background work is not swept by the run's settlement.
    expect(Number(completed.seq)).toBeGreaterThan(Number(end.seq));
  });
});
