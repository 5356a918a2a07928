import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../../main/core/aep/iso-time';

const iso = (ms: number): string => new Date(ms).toISOString();

describe('isoTime', () => {
  it('gives what toISOString gives for any time value a Date can hold', () => {
    fc.assert(
      fc.property(fc.double({ min: -8.64e15, max: 8.64e15, noNaN: true }), (ms) => {
        expect(isoTime(ms)).toBe(iso(ms));
      }),
      { numRuns: 5_000 },
    );
  });

  it('gives the same text at the edges: the epoch, whole and fractional milliseconds, a second boundary, year 9999 and 10000', () => {
    for (const ms of [0, 0.4, 1, 9, 10, 99, 100, 999, 999.9, 1000, 1_751_537_704_221, 1_751_537_704_999, 1_751_537_705_000, 253_402_300_799_999, 253_402_300_800_000, -1, -0.5, -1000.5])
      expect(isoTime(ms), String(ms)).toBe(iso(ms));
  });

  it('stays right when calls go back and forth between seconds (the cache holds one)', () => {
    const times = [1_751_537_704_221, 1_751_537_705_001, 1_751_537_704_999, 1_751_537_705_000, 5, 1_751_537_704_221];
    for (const ms of times) expect(isoTime(ms)).toBe(iso(ms));
  });

  it('throws as toISOString does for a time no Date holds', () => {
    for (const ms of [NaN, Infinity, -Infinity, 8.64e15 + 1]) expect(() => isoTime(ms)).toThrow(RangeError);
  });
});
