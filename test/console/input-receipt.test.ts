/**
 * The seen-by-agent receipt in the message chip, in Node: a steered message whose
 * `x.{agent}.input.received` arrived (in either order with its settlement) reads "Steered · seen
 * by agent"; without it, "Steered"; a receipt never turns another outcome into a steer. The
 * settings words of the mid-turn switch follow the daemon's state (override, kill switch).
 */
import { describe, expect, test } from 'vitest';
import type { AepEvent } from '../../common/aep/envelope';
import { settleInput } from '../../renderer/src/model/input-items';
import { midTurnWords } from '../../renderer/src/views/settings/MidTurnSection';

let n = 0;
const ev = (type: string, data: Record<string, unknown> = {}): AepEvent => ({ aep: '0.1', id: `r${++n}`, type, time: new Date(Date.UTC(2026, 11, 1, 12, 0, n)).toISOString(), source: 'aep://localhost/agents', agent: 'codex', session: 's1', cause: 'cmd', data });
const steered = () => ev('x.codex.input.settled', { outcome: 'steered', delivery: 'now', mechanism: 'turn-steer' });
const received = () => ev('x.codex.input.received', { input: 'cmd', turn: 't1', item: 'i1', mechanism: 'turn-steer' });

describe('the seen-by-agent chip', () => {
  test('Steered, then the receipt: seen by agent', () => {
    const s = settleInput([ev('control.accepted'), steered(), received()], { sent: true });
    expect(s).toMatchObject({ phase: 'steered', label: 'Steered · seen by agent', seen: true });
  });

  test('the receipt first (events in any order): still seen by agent once Steered', () => {
    expect(settleInput([received(), steered()], { sent: true }).label).toBe('Steered · seen by agent');
  });

  test('no receipt: Steered only; a receipt never makes another outcome a steer', () => {
    expect(settleInput([steered()], { sent: true })).toMatchObject({ label: 'Steered' });
    expect(settleInput([steered()], { sent: true }).seen).toBeUndefined();
    const errored = settleInput([ev('x.codex.input.settled', { outcome: 'errored', delivery: 'now' }), received()], { sent: true });
    expect(errored).toMatchObject({ phase: 'errored', label: 'Errored — not re-sent' });
  });
});

describe('the mid-turn switch in words', () => {
  const base = { enabled: false, setting: false, override: null, steering: true };
  test('off, on, killed, locked', () => {
    expect(midTurnWords(base, true)).toEqual({ inForce: expect.stringContaining('Not in force'), lock: null });
    expect(midTurnWords({ ...base, enabled: true, setting: true }, true).inForce).toContain('In force');
    expect(midTurnWords({ ...base, setting: true, steering: false }, false).inForce).toContain('kill switch');
    const locked = midTurnWords({ ...base, enabled: true, override: true }, true);
    expect(locked.lock).toContain('AEP_COMPANION_MID_TURN_STEERING');
    expect(locked.lock).toContain('forces it on');
    expect(midTurnWords({ ...base, override: false }, true).lock).toContain('forces it off');
  });
});
