/**
 * Mid-turn steering of Claude Code through the pinned ACP bridge (promptQueueing) against the
 * Anthropic stub: a steer sent while the Bash tool runs is folded at the tool boundary: its text is
 * in the model request right after the tool result, the outcome is Steered, the usage is counted
 * once and the run finishes once. A steer with no tool boundary left is deferred: the agent answers
 * the running prompt itself, then runs the steer as its own turn; both answers, no error.
 */
import { describe, expect, it } from 'vitest';
import {
  anthropicToolResults,
  isAnthropicAgentRequest,
  startAnthropicStub,
} from '../support/model-stubs/anthropic-stub';
import type { StubServer } from '../support/model-stubs/stub-server';
import {
  closeRigsAfterEach,
  launchedSteer,
  launchWithPrompt,
  openSteerRig,
  TERMINAL,
  type LaunchRig,
} from './launch-rig';

type Json = Record<string, unknown>;
let rig: LaunchRig | null = null;
let stub: StubServer | null = null;
closeRigsAfterEach();

describe('Claude Code: mid-turn steering through the bridge', () => {
  it('steer during a tool call → Steered, the text right after the tool result, usage once, one run.finished', async () => {
    stub = await startAnthropicStub([
      { shell: 'sleep 4; echo steer-probe' },
      { text: 'All done.' },
    ]);
    rig = await openSteerRig('claude-code', stub, { permissions: { allow: ['Bash'] } });
    const session = await launchWithPrompt(rig, 'claude-code', 'Run the probe.');
    expect(await launchedSteer(rig, session)).toMatchObject({
      supports_steering: true,
      mechanism: 'concurrent-prompt',
    });
    await rig.c.waitEvent(
      (e) => e.session === session && e.type === 'tool.requested',
      'the tool call',
      150_000,
    );
    const id = rig.c.command(
      'x.claude-code.control.send_input',
      session,
      { text: 'STEER-VENDOR-MARKER', delivery: 'now' },
      { capture: 'redacted' },
    );
    const settled = await rig.c.waitEvent(
      (e) => e.cause === id && e.type === 'x.claude-code.input.settled',
      'settled',
      150_000,
    );
    expect(settled, rig.c.types(session).join(',')).toMatchObject({
      data: { outcome: 'steered', mechanism: 'concurrent-prompt' },
    });
    const end = await rig.c.waitEvent(
      (e) => e.session === session && TERMINAL.includes(String(e.type)),
      'run end',
      150_000,
    );
    expect(end).toMatchObject({ type: 'run.finished' });
    await rig.d.host.session(session)?.flushed();
    await new Promise((r) => setTimeout(r, 500));
    expect(rig.c.of(session).filter((e) => TERMINAL.includes(String(e.type)))).toHaveLength(1);
    expect(rig.c.of(session).filter((e) => e.type === 'run.started')).toHaveLength(1);
    // The steer text is in the first model request that carries the tool result.
    const afterTool = stub.requests.filter(
      (q) => isAnthropicAgentRequest(q) && anthropicToolResults(q) >= 1,
    );
    expect(afterTool.length).toBeGreaterThan(0);
    expect(JSON.stringify(afterTool[0].body)).toContain('STEER-VENDOR-MARKER');
    // Usage once: the run's usage is what the agent reported on the settlement it ended with.
    expect((end.data as Json)['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const inputs = await rig.d.api<Json[]>(
      'GET',
      `/api/inputs?session=${encodeURIComponent(session)}`,
    );
    expect(inputs.json.find((r) => r.commandId === id)).toMatchObject({
      outcome: 'steered',
      run: end.run,
    });
  });

  it('steer with no tool boundary → Deferred: two runs, both answers in submission order, no error', async () => {
    stub = await startAnthropicStub([{ text: 'Plain answer.' }]);
    rig = await openSteerRig('claude-code', stub, { permissions: { allow: ['Bash'] } });
    const held = stub.hold((q) => isAnthropicAgentRequest(q) && anthropicToolResults(q) === 0);
    const session = await launchWithPrompt(rig, 'claude-code', 'Say something.');
    await held.reached;
    const id = rig.c.command(
      'x.claude-code.control.send_input',
      session,
      { text: 'DEFER-VENDOR-MARKER', delivery: 'now' },
      { capture: 'redacted' },
    );
    await rig.c.waitEvent(
      (e) => e.cause === id && e.type === 'x.claude-code.input.admitted',
      'admitted',
    );
    await new Promise((r) => setTimeout(r, 1_000));
    held.release();
    const settled = await rig.c.waitEvent(
      (e) => e.cause === id && e.type === 'x.claude-code.input.settled',
      'settled',
      150_000,
    );
    expect(settled, rig.c.types(session).join(',')).toMatchObject({
      data: { outcome: 'deferred' },
    });
    const own = await rig.c.waitEvent(
      (e) => e.cause === id && e.type === 'run.started',
      'its own run',
      150_000,
    );
    await rig.c.waitEvent(
      (e) => e.run === own.run && TERMINAL.includes(String(e.type)),
      'its run end',
      150_000,
    );
    const ends = rig.c.of(session).filter((e) => TERMINAL.includes(String(e.type)));
    expect(ends.map((e) => e.type)).toEqual(['run.finished', 'run.finished']);
    expect(rig.c.of(session).some((e) => e.severity === 'error')).toBe(false);
  });
});
