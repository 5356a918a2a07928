import { describe, expect, it } from 'vitest';
import {
  classifySessionSteering,
  classifyTurnSteer,
  isSteerReceipt,
  type SteerAnswer,
} from '../../../../main/core/launched/steer/native-outcome';
import { loadWire, type WireFile } from './wire';

/** The answers to every client request of `method`, with the request params, in wire order. */
function answers(
  file: WireFile,
  method: string,
): { params: Record<string, unknown>; answer: SteerAnswer }[] {
  const out: { params: Record<string, unknown>; answer: SteerAnswer }[] = [];
  for (const req of file.wire.filter(
    (l) => l.dir === 'client->agent' && l.msg['method'] === method,
  )) {
    const res = file.wire.find(
      (l) => l.dir === 'agent->client' && l.msg['id'] === req.msg['id'] && !('method' in l.msg),
    );
    if (!res) continue;
    const error = res.msg['error'] as { code: number; message: string } | undefined;
    out.push({
      params: req.msg['params'] as Record<string, unknown>,
      answer: error
        ? { kind: 'error', code: error.code, message: error.message }
        : { kind: 'result', result: res.msg['result'] },
    });
  }
  return out;
}

const notifications = (file: WireFile) =>
  file.wire.filter((l) => l.dir === 'agent->client' && 'method' in l.msg).map((l) => l.msg);

describe('Codex app-server turn/steer (recorded wire)', () => {
  it('steer: same turn id → Steered, and the userMessage item on that turn is the seen-by-agent receipt', () => {
    const file = loadWire('codex-app-server-0.171.0.steer');
    const [{ params, answer }] = answers(file, 'turn/steer');
    const expected = params['expectedTurnId'] as string;
    const result = classifyTurnSteer(expected, answer);
    expect(result).toMatchObject({ outcome: 'steered', requeue: false, turnId: expected });
    const receipts = notifications(file).filter((n) =>
      isSteerReceipt(n, expected, 'STEER-ACP-MARKER'),
    );
    expect(receipts.map((n) => n['method'])).toEqual(['item/started', 'item/completed']);
    // The foreground prompt's own userMessage is not a receipt for the steer.
    expect(
      notifications(file).filter((n) => isSteerReceipt(n, expected, 'run the probe')).length,
    ).toBe(2);
  });

  it('wrong turn id → -32600 Degraded (requeued as an ordinary prompt); the right one then Steered', () => {
    const file = loadWire('codex-app-server-0.171.0.steer-wrong-turn');
    const [wrong, right] = answers(file, 'turn/steer');
    expect(classifyTurnSteer(wrong.params['expectedTurnId'] as string, wrong.answer)).toMatchObject(
      { outcome: 'degraded', requeue: true },
    );
    expect(classifyTurnSteer(right.params['expectedTurnId'] as string, right.answer)).toMatchObject(
      { outcome: 'steered' },
    );
  });

  it('after the turn ended → -32600 "no active turn" Degraded, never bound to the finished turn', () => {
    const file = loadWire('codex-app-server-0.171.0.steer-after-end');
    const [{ params, answer }] = answers(file, 'turn/steer');
    expect(classifyTurnSteer(params['expectedTurnId'] as string, answer)).toMatchObject({
      outcome: 'degraded',
      requeue: true,
    });
  });

  it('steer then interrupt: the steer was accepted (Steered); the turn then completes interrupted', () => {
    const file = loadWire('codex-app-server-0.171.0.steer-interrupt');
    const [{ params, answer }] = answers(file, 'turn/steer');
    expect(classifyTurnSteer(params['expectedTurnId'] as string, answer).outcome).toBe('steered');
    const done = notifications(file).find((n) => n['method'] === 'turn/completed') as {
      params: { turn: { status: string } };
    };
    expect(done.params.turn.status).toBe('interrupted');
  });

  it('a different turn id back, another error code, or an ambiguous transport failure is Errored and not requeued', () => {
    expect(classifyTurnSteer('t1', { kind: 'result', result: { turnId: 't2' } })).toMatchObject({
      outcome: 'errored',
      requeue: false,
    });
    expect(classifyTurnSteer('t1', { kind: 'result', result: null })).toMatchObject({
      outcome: 'errored',
      requeue: false,
    });
    expect(classifyTurnSteer('t1', { kind: 'error', code: -32603, message: 'x' })).toMatchObject({
      outcome: 'errored',
      requeue: false,
    });
    expect(
      classifyTurnSteer('t1', { kind: 'transport', written: true, message: 'closed' }),
    ).toMatchObject({ outcome: 'errored', requeue: false });
    expect(
      classifyTurnSteer('t1', { kind: 'transport', written: false, message: 'closed' }),
    ).toMatchObject({ outcome: 'degraded', requeue: true });
  });
});

describe('codex-acp _session/steering (recorded wire)', () => {
  it('injected while a turn runs → Steered; promptRequired when idle → Degraded (requeued)', () => {
    const [running, idle] = answers(
      loadWire('codex-acp-2.6.0.ext-steer.native'),
      '_session/steering',
    );
    expect(classifySessionSteering(running.answer)).toMatchObject({
      outcome: 'steered',
      requeue: false,
    });
    expect(classifySessionSteering(idle.answer)).toMatchObject({
      outcome: 'degraded',
      requeue: true,
    });
    expect(idle.params['_meta']).toEqual({ steering: { idleBehavior: 'promptRequired' } });
  });

  it('refusals are Degraded; other errors and unknown answers Errored', () => {
    expect(
      classifySessionSteering({ kind: 'error', code: -32601, message: 'Method not found' }).outcome,
    ).toBe('degraded');
    expect(
      classifySessionSteering({ kind: 'error', code: -32603, message: 'Internal' }).outcome,
    ).toBe('errored');
    expect(classifySessionSteering({ kind: 'result', result: { outcome: 'maybe' } }).outcome).toBe(
      'errored',
    );
    expect(
      classifySessionSteering({ kind: 'result', result: { outcome: 'startedNewTurn' } }).outcome,
    ).toBe('deferred');
  });
});
