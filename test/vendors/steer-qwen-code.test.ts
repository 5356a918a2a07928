/**
 * Qwen Code (`qwen --acp`) advertises no mid-turn input and preempts a concurrent prompt: with
 * mid-turn steering on, a `now` message is queued (and says why), never sent concurrently, and
 * runs as the next turn.
 */
import { describe, expect, it } from 'vitest';
import { startChatStub } from '../support/model-stubs/openai-chat-stub';
import type { StubServer } from '../support/model-stubs/stub-server';
import {
  closeRigsAfterEach,
  launchedSteer,
  launchWithPrompt,
  openSteerRig,
  TERMINAL,
  type LaunchRig,
} from './launch-rig';

let rig: LaunchRig | null = null;
let stub: StubServer | null = null;
closeRigsAfterEach();

describe('Qwen Code: queue only, never concurrent', () => {
  it('a now-delivery while generating queues with the reason and runs after the first turn finished', async () => {
    stub = await startChatStub([{ shell: 'sleep 2; echo qwen-steer' }, { text: 'All done.' }]);
    rig = await openSteerRig('qwen-code', stub);
    const session = await launchWithPrompt(rig, 'qwen-code', 'Run the probe.');
    expect(await launchedSteer(rig, session)).toMatchObject({
      supports_steering: false,
      badge: 'queue only',
    });
    const started = await rig.c.waitEvent(
      (e) => e.session === session && e.type === 'run.started',
      'run',
      150_000,
    );
    const id = rig.c.command(
      'x.qwen-code.control.send_input',
      session,
      { text: 'QWEN-NOW', delivery: 'now' },
      { capture: 'redacted' },
    );
    expect(
      await rig.c.waitEvent(
        (e) => e.cause === id && e.type === 'x.qwen-code.input.admitted',
        'admitted',
      ),
    ).toMatchObject({
      data: { action: 'queue', reason: 'the agent advertised no mid-turn input' },
    });
    const first = await rig.c.waitEvent(
      (e) =>
        e.run === started.run &&
        TERMINAL.includes(String(e.type)),
      'first run end',
      150_000,
    );
    expect(first).toMatchObject({ type: 'run.finished' });
    // Every model request of the first turn has arrived by the time its run finished.
    const firstTurnRequests = stub.requests.length;
    const next = await rig.c.waitEvent(
      (e) => e.cause === id && e.type === 'run.started',
      'second run',
      60_000,
    );
    expect(rig.c.events.indexOf(next)).toBeGreaterThan(rig.c.events.indexOf(first));
    expect(
      await rig.c.waitEvent(
        (e) => e.cause === id && e.type === 'x.qwen-code.input.settled',
        'settled',
      ),
    ).toMatchObject({ data: { outcome: 'prompted' } });
    await rig.c.waitEvent(
      (e) => e.run === next.run && e.type === 'run.finished',
      'second run end',
      150_000,
    );
    // The model saw the queued text only after the first turn: no request of that turn carries it
    // (later side requests of the agent may repeat older history without it: they prove nothing).
    const bodies = stub.requests.map((q) => JSON.stringify(q.body ?? ''));
    expect(firstTurnRequests).toBeGreaterThan(0);
    expect(bodies.slice(0, firstTurnRequests).some((b) => b.includes('QWEN-NOW'))).toBe(false);
    expect(bodies.slice(firstTurnRequests).some((b) => b.includes('QWEN-NOW'))).toBe(true);
  });
});
