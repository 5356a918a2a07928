/**
 * Stop holds the queue, with a real `codex app-server` and the real daemon: a message queued
 * while a turn runs is not sent when the operator stops the turn (`aep-companion cancel`); the
 * queue is held (`x.codex.input.queue_paused`, durable, "paused" in the pending list) until the
 * operator resumes it (`aep-companion cancel --resume-queue`), and then it is sent as the next
 * turn and reaches the model.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { run as cancel } from '../../main/cli/commands/cancel';
import { isResponsesAgentRequest, responsesToolResults, startResponsesStub } from '../support/model-stubs/openai-responses-stub';
import { requestContains } from '../support/model-stubs/stub-server';
import { closeRigsAfterEach, launchWithPrompt, openTestRig, TERMINAL } from './launch-rig';

type Json = Record<string, unknown>;
closeRigsAfterEach();
afterEach(() => vi.restoreAllMocks());

/** Runs a CLI command, capturing what it printed. */
async function capture(fn: () => Promise<number>): Promise<{ code: number; out: string; err: string }> {
  let out = '';
  let err = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((err += String(chunk)), true));
  try {
    return { code: await fn(), out, err };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('Codex: Stop holds the queue', () => {
  it('cancel with a message queued sends nothing and holds the queue; Resume sends it as the next turn', async () => {
    const stub = await startResponsesStub([{ shell: 'echo before-stop' }, { text: 'never seen' }, { text: 'Resumed and done.' }]);
    const rig = await openTestRig('codex', stub);
    const held = stub.hold((q) => isResponsesAgentRequest(q) && responsesToolResults(q) === 1);
    const session = await launchWithPrompt(rig, 'codex', 'Run echo before-stop.');
    await held.reached;
    const queued = rig.c.command('x.codex.control.send_input', session, { text: 'QUEUED-AFTER-STOP', delivery: 'queue' }, { capture: 'redacted' });
    await rig.c.waitEvent((e) => e.cause === queued && e.type === 'x.codex.input.queued', 'queued', 60_000);

    const stopped = await capture(() => cancel([session, '--data-dir', rig.d.dataDir]));
    expect(stopped.code, stopped.err).toBe(0);
    expect(stopped.out).toMatch(/run.cancelled/);
    expect(stopped.out).toMatch(/queue held: 1 message/);
    const end = await rig.c.waitEvent((e) => e.session === session && TERMINAL.includes(String(e.type)), 'run end', 60_000);
    held.release();
    expect(end).toMatchObject({ type: 'run.cancelled' });
    const paused = rig.c.of(session).find((e) => e.type === 'x.codex.input.queue_paused') as Json;
    expect(paused).toMatchObject({ cause: end.cause, data: { reason: 'stop', queued: 1 } });

    // The turn has settled (run.cancelled went out before the controller moved on): nothing was sent.
    const inputs = await rig.d.api<Json[]>('GET', `/api/inputs?session=${encodeURIComponent(session)}`);
    expect(inputs.json.find((r) => r.commandId === queued)).toMatchObject({ state: 'queued' });
    const pending = await rig.d.api<Json>('GET', `/api/pending?session=${encodeURIComponent(session)}`);
    expect(pending.json).toMatchObject({ paused: { cause: end.cause }, items: [{ commandId: queued }] });
    expect(rig.d.daemon.context.db.prepare('SELECT cause FROM queue_pauses WHERE session = ?').get(session)).toEqual({ cause: end.cause });
    expect(rig.c.of(session).filter((e) => e.type === 'run.started')).toHaveLength(1);
    expect(stub.requests.some((q) => requestContains(q, 'QUEUED-AFTER-STOP'))).toBe(false);

    const resumed = await capture(() => cancel([session, '--resume-queue', '--data-dir', rig.d.dataDir]));
    expect(resumed.code, resumed.err).toBe(0);
    expect(resumed.out).toMatch(/queue resumed/);
    const settled = await rig.c.waitEvent((e) => e.cause === queued && e.type === 'x.codex.input.settled', 'settled', 60_000);
    expect(settled).toMatchObject({ data: { outcome: 'prompted', delivery: 'queue' } });
    expect(rig.c.of(session).find((e) => e.type === 'x.codex.input.queue_resumed')).toMatchObject({ cause: end.cause, data: { by: 'resume' } });
    const second = await rig.c.waitEvent((e) => e.session === session && e.type === 'run.finished', 'resumed run end', 150_000);
    expect(second).toMatchObject({ type: 'run.finished' });
    expect(stub.requests.some((q) => requestContains(q, 'QUEUED-AFTER-STOP'))).toBe(true);
    expect(rig.d.daemon.context.db.prepare('SELECT cause FROM queue_pauses WHERE session = ?').get(session)).toBeUndefined();
    expect((await rig.d.api<Json>('POST', '/api/pending/resume', { session })).status).toBe(409);
    const again = await capture(() => cancel([session, '--resume-queue', '--data-dir', rig.d.dataDir]));
    expect(again.code).toBe(3);
    expect(again.err).toMatch(/is not paused/);
  });
});
