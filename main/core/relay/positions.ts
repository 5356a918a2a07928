/** Resume positions (AEP-0003 §7): parsing `from` (array or "all") and `Last-Event-ID`, and ordering. */
import type { Position } from '../../../common/aep/envelope';
import { err, ok, type Result } from '../../../common/result';
import { parseBoundedJson } from '../aep/bounded-json';

/** A replay request: explicit positions, or every held session from its earliest event. */
export type ReplayFrom = readonly Position[] | 'all';

const isCount = (v: unknown): v is number =>
  typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

/** Validates a parsed `from` value; `max` bounds the number of positions (`limit-exceeded`). */
export function parseFrom(
  value: unknown,
  max: number,
): Result<ReplayFrom, 'invalid-filter' | 'limit-exceeded'> {
  if (value === 'all') return ok('all');
  if (!Array.isArray(value))
    return err(
      'invalid-filter',
      'from must be an array of {session, epoch, seq} positions or the string "all"',
    );
  if (value.length > max)
    return err(
      'limit-exceeded',
      `from names ${value.length} positions; this relay replays at most ${max} per subscription`,
    );
  const out: Position[] = [];
  for (let i = 0; i < value.length; i++) {
    const p = value[i] as Record<string, unknown> | null;
    if (typeof p !== 'object' || p === null || Array.isArray(p))
      return err('invalid-filter', `from[${i}] must be an object {session, epoch, seq}`);
    if (typeof p.session !== 'string' || p.session === '')
      return err('invalid-filter', `from[${i}].session must be a non-empty string`);
    if (!isCount(p.epoch))
      return err('invalid-filter', `from[${i}].epoch must be a non-negative integer`);
    if (!isCount(p.seq))
      return err('invalid-filter', `from[${i}].seq must be a non-negative integer`);
    out.push({ session: p.session, epoch: p.epoch, seq: p.seq });
  }
  return ok(out);
}

/** Parses the `from` query parameter of SSE (URL-decoded JSON array, or the literal `all`). */
export function parseFromParam(
  text: string,
  max: number,
): Result<ReplayFrom, 'invalid-filter' | 'limit-exceeded'> {
  if (text === 'all') return ok('all');
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) {
    return err(
      'invalid-filter',
      'from must be a JSON array of {session, epoch, seq} positions or the string all',
    );
  }
  return parseFrom(parsed.value, max);
}

/** Parses `Last-Event-ID: session:epoch:seq` (the session may itself contain colons). */
export function parseLastEventId(text: string): Result<Position, 'invalid-filter'> {
  const m = /^(.+):(\d{1,15}):(\d{1,15})$/.exec(text.trim());
  if (!m) return err('invalid-filter', 'Last-Event-ID must be session:epoch:seq');
  return ok({ session: m[1], epoch: Number(m[2]), seq: Number(m[3]) });
}

/** Compares two (epoch, seq) positions lexicographically. */
export function comparePositions(
  a: { epoch: number; seq: number },
  b: { epoch: number; seq: number },
): number {
  return a.epoch !== b.epoch ? a.epoch - b.epoch : a.seq - b.seq;
}

/** The SSE `id:` of an event that has a resumable position, else null. */
export function positionId(
  session: string | undefined,
  epoch: number | undefined,
  seq: number | undefined,
): string | null {
  return session !== undefined && seq !== undefined ? `${session}:${epoch ?? 0}:${seq}` : null;
}
