/** Monotonic ULIDs (48-bit millisecond time + 80-bit randomness, Crockford base32), without a dependency. */
import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const MAX_TIME = 2 ** 48 - 1;

/** Random bytes drawn per pool refill: one system call for 256 new milliseconds, not one each. */
const POOL_BYTES = 2_560;

/** `randomBytes(n)` served from a pool refilled in bulk (the hot path starts a millisecond per id). */
function pooledRandom(): (n: number) => Uint8Array {
  let pool = randomBytes(POOL_BYTES);
  let at = 0;
  return (n) => {
    if (at + n > pool.length) {
      pool = randomBytes(Math.max(POOL_BYTES, n));
      at = 0;
    }
    const out = pool.subarray(at, at + n);
    at += n;
    return out;
  };
}

/** A ULID generator whose ids strictly increase, even within one millisecond or when the clock steps back. */
export function createUlid(
  now: () => number = Date.now,
  random: (n: number) => Uint8Array = pooledRandom(),
): () => string {
  let lastTime = -1;
  // The 80 random bits as 16 base32 digits (5 bits each), so a same-millisecond increment is digit arithmetic.
  const digits = new Uint8Array(16);
  // What stays the same between ids: the time part of the current millisecond (ids are stamped
  // by the thousand per second, most within a millisecond of the previous one).
  let timePart = '';
  // The id without its last digit: an increment without carry (31 of 32) only changes that digit.
  let head = '';
  return () => {
    const t = Math.max(Math.floor(now()), lastTime);
    if (!(t >= 0 && t <= MAX_TIME)) throw new Error(`ulid: time ${t} is outside the 48-bit range`);
    if (t === lastTime) {
      if (digits[15] < 31) return head + ALPHABET[++digits[15]];
      increment(digits);
    } else {
      const bytes = random(10);
      for (let i = 0; i < 16; i++) digits[i] = readBits(bytes, i * 5);
      lastTime = t;
      timePart = encodeTime(t);
    }
    head = timePart;
    for (let i = 0; i < 15; i++) head += ALPHABET[digits[i]];
    return head + ALPHABET[digits[15]];
  };
}

/** The 48-bit time as 10 base32 digits, most significant first. */
function encodeTime(t: number): string {
  let out = '';
  let time = t;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[time % 32] + out;
    time = Math.floor(time / 32);
  }
  return out;
}

/** Adds one to the random part; overflow (2^80 ids in one millisecond) is a bug, never a repeated id. */
function increment(digits: Uint8Array): void {
  for (let i = 15; i >= 0; i--) {
    if (digits[i] < 31) {
      digits[i]++;
      return;
    }
    digits[i] = 0;
  }
  throw new Error('ulid: random component overflowed within one millisecond');
}

function readBits(bytes: Uint8Array, bitOffset: number): number {
  let value = 0;
  for (let b = 0; b < 5; b++) {
    const bit = bitOffset + b;
    value = (value << 1) | ((bytes[bit >> 3] >> (7 - (bit & 7))) & 1);
  }
  return value;
}

/** Returns a new monotonic ULID (process-wide generator). */
export const ulid: () => string = createUlid();
