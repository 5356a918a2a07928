import { describe, expect, it } from 'vitest';
import { deriveSupport, type SupportInput } from '../../../../main/core/launched/steer/supports';
import { isZeroUsage, readUsage, UsageLedger } from '../../../../main/core/launched/steer/usage';

const live: SupportInput = {
  connected: true,
  mechanism: 'concurrent-prompt',
  basis: 'the agent accepts a prompt while one is in flight (promptQueueing)',
  steeringOn: true,
  midTurnOn: true,
  state: 'generating',
};

describe('supports_steering and the badge', () => {
  it('capable + toggles on + promptable or generating → delivered now (never a promise to fold)', () => {
    for (const state of ['idle', 'generating'] as const) {
      expect(deriveSupport({ ...live, state })).toEqual({
        supports_steering: true,
        mode: 'mid-turn',
        badge: 'delivered now',
        reason: live.basis,
        mechanism: 'concurrent-prompt',
      });
    }
  });

  it('toggle off or kill switch off → next turn, with the reason', () => {
    expect(deriveSupport({ ...live, midTurnOn: false })).toMatchObject({
      supports_steering: false,
      badge: 'next turn',
      reason: 'mid-turn steering is off',
    });
    expect(deriveSupport({ ...live, steeringOn: false })).toMatchObject({
      supports_steering: false,
      badge: 'next turn',
      reason: 'steering is off (kill switch)',
    });
  });

  it('no capability or no live connection → queue only, with the reason', () => {
    expect(
      deriveSupport({
        ...live,
        mechanism: 'none',
        basis: 'the agent advertised no mid-turn input',
      }),
    ).toMatchObject({
      supports_steering: false,
      badge: 'queue only',
      reason: 'the agent advertised no mid-turn input',
    });
    expect(deriveSupport({ ...live, connected: false })).toMatchObject({
      badge: 'queue only',
      reason: 'the agent is not connected',
    });
    expect(deriveSupport({ ...live, state: 'ended' })).toMatchObject({
      supports_steering: false,
      badge: 'queue only',
    });
  });
});

describe('usage attribution', () => {
  it('reads only non-negative finite numbers; nothing to read is null, not zero', () => {
    expect(
      readUsage({ inputTokens: 2, outputTokens: 4, note: 'x', bad: -1, inf: Infinity }),
    ).toEqual({ inputTokens: 2, outputTokens: 4 });
    expect(readUsage(undefined)).toBeNull();
    expect(readUsage({})).toBeNull();
    expect(isZeroUsage(null)).toBe(false);
    expect(isZeroUsage({ inputTokens: 0, totalTokens: 0 })).toBe(true);
  });

  it('records once per reporting prompt: a replayed settlement or a zero early settlement counts nothing', () => {
    const ledger = new UsageLedger();
    expect(ledger.record('3', 'run-3', { totalTokens: 0 })).toBe(false);
    expect(ledger.record('4', 'run-3', { inputTokens: 2, totalTokens: 6 })).toBe(true);
    expect(ledger.record('4', 'run-3', { inputTokens: 2, totalTokens: 6 })).toBe(false);
    expect(ledger.total()).toEqual({ inputTokens: 2, totalTokens: 6 });
    expect(ledger.total('run-9')).toEqual({});
  });
});
