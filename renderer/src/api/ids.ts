/** Event ids minted by the console: ULID-shaped (time-ordered, 26 Crockford base32 chars). */

const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A new ULID string from the current time and browser randomness. */
export function newId(now: number = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += ALPHABET[bytes[i] % 32];
  return time + rand;
}
