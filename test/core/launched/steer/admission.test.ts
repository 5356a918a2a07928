import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admit, type AdmissionInput } from '../../../../main/core/launched/steer/admission';
import { parseAcpSteerCapability } from '../../../../main/core/launched/steer/capability';
import { initializeResult, loadWire } from './wire';

const generating: AdmissionInput = {
  delivery: 'now',
  synthetic: false,
  connected: true,
  mechanism: 'concurrent-prompt',
  steeringOn: true,
  midTurnOn: true,
  turn: 'dispatched',
  queuedAhead: 0,
  steer: 'offered',
};

describe('admission (spec scenarios)', () => {
  it('toggle off: input to a generating session queues', () => {
    expect(admit({ ...generating, midTurnOn: false })).toMatchObject({
      action: 'queue',
      reason: 'mid-turn steering is off',
    });
  });

  it('kill switch off: no steer at once, whatever the mid-turn toggle says', () => {
    expect(admit({ ...generating, steeringOn: false })).toMatchObject({
      action: 'queue',
      reason: 'steering is off (kill switch)',
    });
  });

  it('steer-capable generating session with an empty queue: delivered to the running turn', () => {
    expect(admit(generating)).toEqual({
      action: 'steer',
      mechanism: 'concurrent-prompt',
      reason: 'the turn is generating',
    });
  });

  it('an agent that advertises nothing: queues', () => {
    expect(admit({ ...generating, mechanism: 'none' })).toMatchObject({
      action: 'queue',
      reason: 'the agent advertised no mid-turn input',
    });
  });

  it('one already-queued message: the new one queues behind it rather than steering', () => {
    expect(admit({ ...generating, queuedAhead: 1 })).toMatchObject({
      action: 'queue',
      reason: '1 message queued ahead',
    });
  });

  it('a steer sent and not acknowledged: the second message queues', () => {
    expect(admit({ ...generating, steer: 'sent' })).toMatchObject({
      action: 'queue',
      reason: 'a steer is already in flight',
    });
  });

  it('a synthetic prompt never steers and never overtakes: it waits for the owning prompt', () => {
    expect(admit({ ...generating, synthetic: true })).toMatchObject({
      action: 'queue',
      reason: 'waits for the owning prompt',
    });
    expect(admit({ ...generating, synthetic: true, steer: 'sent' })).toMatchObject({
      action: 'queue',
    });
  });

  it('idle steer-capable session: dispatched as an ordinary prompt', () => {
    expect(admit({ ...generating, turn: 'idle' })).toEqual({
      action: 'prompt',
      outcome: 'prompted',
      reason: 'session idle',
    });
  });

  it('admitted but not dispatched: degrades to an ordinary prompt in submission order (never a steer)', () => {
    expect(admit({ ...generating, turn: 'admitted' })).toMatchObject({
      action: 'queue',
      outcome: 'degraded',
    });
    expect(admit({ ...generating, turn: 'cancelling' })).toMatchObject({
      action: 'queue',
      outcome: 'degraded',
    });
  });

  it('stop: cancel then prompt while a turn runs; a plain prompt when idle', () => {
    expect(admit({ ...generating, delivery: 'stop' })).toMatchObject({
      action: 'cancel-then-prompt',
    });
    expect(admit({ ...generating, delivery: 'stop', turn: 'idle' })).toMatchObject({
      action: 'prompt',
    });
  });

  it('queue: never a steer', () => {
    expect(admit({ ...generating, delivery: 'queue' })).toMatchObject({
      action: 'queue',
      outcome: 'prompted',
    });
  });

  it('no live connection: refused with a reason', () => {
    expect(admit({ ...generating, connected: false })).toMatchObject({
      action: 'refuse',
      code: 'not-live',
    });
  });
});

describe('preempting agents are never sent a concurrent prompt', () => {
  for (const name of [
    'qwen-code-0.15.10.steer.concurrent',
    'qwen-code-0.24.4.steer.concurrent',
    'gemini-cli-0.61.0.steer.concurrent',
    'zed-codex-acp-0.16.0.steer.concurrent',
  ]) {
    it(`${name}: every delivery while generating queues`, () => {
      const { mechanism } = parseAcpSteerCapability(initializeResult(loadWire(name)));
      for (const delivery of ['now', 'queue'] as const) {
        expect(admit({ ...generating, mechanism, delivery }).action).toBe('queue');
      }
    });
  }

  it('property: only a steer-capable, toggled-on, dispatched, unqueued, non-synthetic now-delivery ever steers', () => {
    fc.assert(
      fc.property(
        fc.record({
          delivery: fc.constantFrom('now', 'queue', 'stop'),
          synthetic: fc.boolean(),
          connected: fc.boolean(),
          mechanism: fc.constantFrom('none', 'concurrent-prompt', 'session-steering', 'turn-steer'),
          steeringOn: fc.boolean(),
          midTurnOn: fc.boolean(),
          turn: fc.constantFrom('idle', 'admitted', 'dispatched', 'cancelling'),
          queuedAhead: fc.nat(5),
          steer: fc.constantFrom('none', 'offered', 'sent', 'folded', 'deferred'),
        }),
        (input) => {
          const decision = admit(input as AdmissionInput);
          const allowed =
            input.delivery === 'now' &&
            !input.synthetic &&
            input.connected &&
            input.mechanism !== 'none' &&
            input.steeringOn &&
            input.midTurnOn &&
            input.turn === 'dispatched' &&
            input.queuedAhead === 0 &&
            input.steer !== 'sent';
          expect(decision.action === 'steer').toBe(allowed);
          // Nothing ever dispatches over a running turn.
          if (input.turn !== 'idle') expect(decision.action).not.toBe('prompt');
        },
      ),
    );
  });
});
