/**
 * `new Date(ms).toISOString()` for the times the daemon stamps on every event: the date and clock
 * part is built once per second and the milliseconds appended, instead of a `Date` and its
 * formatting per call. The same text for every time value, the ones outside the cached range
 * (before 1970, after year 9999, invalid) included: those go to `toISOString` itself.
 */

/** The first time value whose ISO form has a six-digit year (year 10000). */
const YEAR_10000 = 253_402_300_800_000;

let cachedSecond = -1;
let cachedPrefix = '';

/** The ISO 8601 text of the time value `ms` (what `new Date(ms).toISOString()` gives, and throws). */
export function isoTime(ms: number): string {
  // A Date keeps whole milliseconds, truncated towards zero.
  const t = Math.trunc(ms);
  if (!(t >= 0 && t < YEAR_10000)) return new Date(ms).toISOString();
  const second = Math.floor(t / 1000);
  if (second !== cachedSecond) {
    cachedPrefix = new Date(second * 1000).toISOString().slice(0, 20);
    cachedSecond = second;
  }
  const milli = t - second * 1000;
  return `${cachedPrefix}${milli < 10 ? '00' : milli < 100 ? '0' : ''}${milli}Z`;
}
