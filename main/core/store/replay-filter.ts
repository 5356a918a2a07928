/**
 * Pushes the part of an attr-match filter (AEP-0003 §6) that the `events` routing columns can
 * answer down into the replay's SQL: `type` (exact and `prefix.*`), `severity` (values and ranges,
 * default `info`), `source`, `agent`, `cause` and `epoch` (default 0). The SQL condition is always
 * implied by the filter, so a replay may still apply the full predicate after it; when every key
 * was pushed down, `exact` says the SQL alone decides and rows need no parse at all.
 */
import { SEVERITIES } from '../../../common/aep/envelope';

/** A WHERE fragment (ANDed, `?` placeholders) with its values. */
export interface ReplaySql {
  /** The conjunction, e.g. `AND type IN (?, ?)`; '' when nothing could be pushed down. */
  readonly where: string;
  readonly values: readonly (string | number)[];
  /** True when the SQL condition is the whole filter (no key is left to the caller). */
  readonly exact: boolean;
  /** A stable key of the statement shape (for statement caching). */
  readonly shape: string;
}

/** No condition at all. */
export const NO_REPLAY_SQL: ReplaySql = { where: '', values: [], exact: true, shape: '' };

const asList = (predicate: unknown): unknown[] =>
  Array.isArray(predicate) ? predicate : [predicate];
const allStrings = (values: unknown[]): values is string[] =>
  values.length > 0 && values.every((v) => typeof v === 'string');
const allIntegers = (values: unknown[]): values is number[] =>
  values.length > 0 && values.every((v) => Number.isSafeInteger(v));
const marks = (n: number): string => Array.from({ length: n }, () => '?').join(', ');

/** The SQL part of a filter spec (already validated by parseFilter); keys it cannot express are left out. */
export function replaySql(spec: Readonly<Record<string, unknown>>): ReplaySql {
  const parts: string[] = [];
  const values: (string | number)[] = [];
  let exact = true;
  const add = (part: string, vs: readonly (string | number)[]): void => {
    parts.push(part);
    values.push(...vs);
  };
  for (const [key, predicate] of Object.entries(spec)) {
    const list = asList(predicate);
    switch (key) {
      case 'type': {
        if (!allStrings(list)) {
          exact = false;
          break;
        }
        const exactTypes = list.filter((t) => !t.endsWith('.*'));
        const prefixes = list.filter((t) => t.endsWith('.*')).map((t) => t.slice(0, -1));
        const ors: string[] = [];
        if (exactTypes.length > 0) ors.push(`type IN (${marks(exactTypes.length)})`);
        for (const p of prefixes) ors.push(`substr(type, 1, ${p.length}) = ?`);
        add(`(${ors.join(' OR ')})`, [...exactTypes, ...prefixes]);
        break;
      }
      case 'severity': {
        let levels: string[] | null = null;
        if (typeof predicate === 'object' && predicate !== null && !Array.isArray(predicate)) {
          const range = predicate as { gte?: string; lte?: string };
          const lo = range.gte === undefined ? 0 : SEVERITIES.indexOf(range.gte as never);
          const hi =
            range.lte === undefined
              ? SEVERITIES.length - 1
              : SEVERITIES.indexOf(range.lte as never);
          levels = SEVERITIES.slice(lo, hi + 1);
        } else if (allStrings(list)) {
          levels = list;
        }
        if (levels === null) {
          exact = false;
          break;
        }
        if (levels.length === 0) add('0', []);
        else add(`COALESCE(severity, 'info') IN (${marks(levels.length)})`, levels);
        break;
      }
      case 'source':
      case 'agent':
      case 'cause':
        if (allStrings(list)) add(`${key} IN (${marks(list.length)})`, list);
        else exact = false;
        break;
      case 'epoch':
        if (allIntegers(list)) add(`COALESCE(epoch, 0) IN (${marks(list.length)})`, list);
        else exact = false;
        break;
      default:
        // session restricts which sessions are replayed (the caller's plan); the rest needs the JSON.
        if (key !== 'session') exact = false;
    }
  }
  if (parts.length === 0) return { ...NO_REPLAY_SQL, exact };
  const where = parts.map((p) => `AND ${p}`).join(' ');
  return { where, values, exact, shape: where };
}
