/** Codex launched as `codex app-server` (found on PATH by the catalogue) against the Responses stub: launch, a turn with a tool call, interrupt. */
import { afterEach, describe, expect, it } from 'vitest';
import { isResponsesAgentRequest, responsesToolResults, startResponsesStub } from '../support/model-stubs/openai-responses-stub';
import type { StubServer } from '../support/model-stubs/stub-server';
import { openLaunchRig, type LaunchRig } from './launch-rig';

type Json = Record<string, unknown>;
let rig: LaunchRig | null = null;
let stub: StubServer | null = null;
afterEach(async () => {
  await rig?.close();
  await stub?.close();
  rig = null;
  stub = null;
});
const terminal = (session: string) => (e: Json) => e.session === session && ['run.finished', 'run.failed', 'run.cancelled'].includes(String(e.type));

describe('Codex through codex app-server', () => {
  it('launches a thread (its id is the session) and runs a turn with a tool call to run.finished', async () => {
    stub = await startResponsesStub([{ shell: 'echo codex-launched' }, { text: 'All done.' }]);
    rig = await openLaunchRig('codex', stub);
    const res = await rig.d.api<Json>('POST', '/api/launch', { agent: 'codex', cwd: rig.cwd, prompt: 'Run echo codex-launched.' });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    expect(res.json.capabilities).toMatchObject({ userAgent: expect.stringContaining('aep-companion') });
    const session = String(res.json.session);
    const end = await rig.c.waitEvent(terminal(session), 'run end', 150_000);
    expect(end, rig.c.types(session).join(',')).toMatchObject({ type: 'run.finished', data: { stop_reason: 'end_turn' } });
    const requested = rig.c.of(session).find((e) => e.type === 'tool.requested') as Json;
    expect(requested).toMatchObject({ data: { kind: 'execute' } });
    expect(rig.c.of(session).find((e) => e.type === 'tool.completed')).toMatchObject({ cause: requested.id });
    expect((await rig.d.api<Json[]>('GET', '/api/launched')).json[0]).toMatchObject({ session, agent: 'codex', state: 'idle' });
  });

  it('control.cancel interrupts the running turn (turn/interrupt) → run.cancelled, cause-linked', async () => {
    stub = await startResponsesStub([{ shell: 'echo before-interrupt' }, { text: 'never seen' }]);
    rig = await openLaunchRig('codex', stub);
    const held = stub.hold((q) => isResponsesAgentRequest(q) && responsesToolResults(q) === 1);
    const res = await rig.d.api<Json>('POST', '/api/launch', { agent: 'codex', cwd: rig.cwd, prompt: 'Run echo before-interrupt.' });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const session = String(res.json.session);
    await held.reached;
    const id = rig.c.command('control.cancel', session, { scope: 'run' });
    expect(await rig.c.ack(id)).toMatchObject({ type: 'control.accepted' });
    const end = await rig.c.waitEvent(terminal(session), 'run end', 60_000);
    held.release();
    expect(end).toMatchObject({ type: 'run.cancelled', cause: id });
  });
});
