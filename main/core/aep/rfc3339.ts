/** A fast RFC 3339 `date-time` check (AEP-0001 §5.1 #5: timestamp with timezone), used as the ajv format. */

const DATE_TIME =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:[Zz]|[+-](\d{2}):(\d{2}))$/;
const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** True for an RFC 3339 date-time with a timezone (`Z` or `±hh:mm`), with real calendar and clock ranges. */
export function isRfc3339DateTime(text: string): boolean {
  const m = DATE_TIME.exec(text);
  if (m === null) return false;
  const year = +m[1];
  const month = +m[2];
  const day = +m[3];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  if (day > (month === 2 && leap ? 29 : DAYS[month - 1])) return false;
  // Second 60 is a leap second (RFC 3339 §5.7); the offset check accepts it without a leap-second table.
  if (+m[4] > 23 || +m[5] > 59 || +m[6] > 60) return false;
  return m[7] === undefined || (+m[7] <= 23 && +m[8] <= 59);
}
