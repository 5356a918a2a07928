import { describe, expect, it } from 'vitest';
import { createUlid, ulid } from '../../../main/core/aep';

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const decodeTime = (id: string): number =>
  [...id.slice(0, 10)].reduce(
    (t, ch) => t * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(ch),
    0,
  );

describe('ulid', () => {
  it('produces 26 Crockford base32 characters', () => {
    expect(ulid()).toMatch(CROCKFORD);
  });

  it('encodes the millisecond time in the first 10 characters', () => {
    const next = createUlid(() => 1_751_537_704_221);
    expect(decodeTime(next())).toBe(1_751_537_704_221);
  });

  it('strictly increases within one millisecond', () => {
    const next = createUlid(() => 1_000);
    const ids = Array.from({ length: 10_000 }, next);
    for (let i = 1; i < ids.length; i++) expect(ids[i] > ids[i - 1]).toBe(true);
  });

  it('keeps increasing when the clock steps back', () => {
    let now = 5_000;
    const next = createUlid(() => now);
    const a = next();
    now = 4_000;
    const b = next();
    expect(b > a).toBe(true);
    expect(decodeTime(b)).toBe(5_000);
  });

  it('carries the increment and refuses to repeat an id when the random part overflows', () => {
    const next = createUlid(
      () => 7,
      () => new Uint8Array(10).fill(0xff).map((v, i) => (i === 9 ? 0xfe : v)),
    );
    expect(next().slice(10)).toBe('ZZZZZZZZZZZZZZZY');
    expect(next().slice(10)).toBe('ZZZZZZZZZZZZZZZZ');
    expect(() => next()).toThrow('overflowed');
  });

  it('carries into higher digits', () => {
    const next = createUlid(
      () => 7,
      () => new Uint8Array(10).map((_v, i) => (i === 9 ? 0x1f : 0)),
    );
    expect(next().slice(10)).toBe('000000000000000Z');
    expect(next().slice(10)).toBe('0000000000000010');
  });
});
