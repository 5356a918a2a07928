/**
 * Codex `codex app-server`: mid-turn steering with the native `turn/steer` (expectedTurnId = the
 * running turn): the same turn id back is Steered, the app-server's userMessage item for it is the
 * seen-by-agent receipt (`x.codex.input.received`, `receivedAt` in SQLite), the steer text
 * reaches the model in that turn, and the turn finishes once.
 */
import { describe, expect, it } from 'vitest';
import {
  isResponsesAgentRequest,
  responsesToolResults,
  startResponsesStub,
} from '../support/model-stubs/openai-responses-stub';
import type { StubServer } from '../support/model-stubs/stub-server';
import { closeRigsAfterEach, openSteerRig, TERMINAL, type LaunchRig } from './launch-rig';

type Json = Record<string, unknown>;
let rig: LaunchRig | null = null;
let stub: StubServer | null = null;
closeRigsAfterEach();

describe('Codex: turn/steer', () => {
  it('a steer while the tool runs → Steered (turn-steer), the text in the same turn, one run.finished', async () => {
    stub = await startResponsesStub([
      { shell: 'sleep 4; echo codex-steer' },
      { text: 'All done.' },
    ]);
    rig = await openSteerRig('codex', stub);
    const res = await rig.d.api<Json>('POST', '/api/launch', {
      agent: 'codex',
      cwd: rig.cwd,
      prompt: 'Run the probe.',
    });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    const session = String(res.json.session);
    const launched = await rig.d.api<Json[]>('GET', '/api/launched');
    expect(launched.json.find((s) => s.session === session)?.steer).toMatchObject({
      supports_steering: true,
      mechanism: 'turn-steer',
    });
    await rig.c.waitEvent(
      (e) => e.session === session && e.type === 'tool.requested',
      'the tool call',
      150_000,
    );
    const id = rig.c.command(
      'x.codex.control.send_input',
      session,
      { text: 'CODEX-STEER-MARKER', delivery: 'now' },
      { capture: 'redacted' },
    );
    const settled = await rig.c.waitEvent(
      (e) => e.cause === id && e.type === 'x.codex.input.settled',
      'settled',
      150_000,
    );
    expect(settled, rig.c.types(session).join(',')).toMatchObject({
      data: { outcome: 'steered', mechanism: 'turn-steer' },
    });
    // The seen-by-agent receipt: the app-server's userMessage item for the steer, on the same turn.
    const received = await rig.c.waitEvent(
      (e) => e.cause === id && e.type === 'x.codex.input.received',
      'received',
      150_000,
    );
    expect(received).toMatchObject({ session, data: { input: id, mechanism: 'turn-steer' } });
    expect(typeof (received.data as Json).turn).toBe('string');
    expect(typeof (received.data as Json).item).toBe('string');
    const end = await rig.c.waitEvent(
      (e) => e.session === session && TERMINAL.includes(String(e.type)),
      'run end',
      150_000,
    );
    expect(end).toMatchObject({ type: 'run.finished' });
    const afterTool = stub.requests.filter(
      (q) => isResponsesAgentRequest(q) && responsesToolResults(q) >= 1,
    );
    expect(afterTool.some((q) => JSON.stringify(q.body).includes('CODEX-STEER-MARKER'))).toBe(true);
    await new Promise((r) => setTimeout(r, 500));
    expect(rig.c.of(session).filter((e) => TERMINAL.includes(String(e.type)))).toHaveLength(1);
    expect(rig.c.of(session).filter((e) => e.type === 'x.codex.input.received')).toHaveLength(1);
    const rows = await rig.d.api<Json[]>('GET', `/api/inputs?session=${encodeURIComponent(session)}`);
    expect(typeof rows.json.find((r) => r.commandId === id)?.receivedAt).toBe('string');
  });
});
