/** The `attr-match` filter dialect (AEP-0003 §6): parse (fail closed) into a compiled predicate, then match. */
import { CAPTURES, SEVERITIES, type AepEvent } from '../../../common/aep/envelope';
import { err, ok, type Result } from '../../../common/result';
import { isCoreAttribute, isExtensionName } from './core-attributes';

type Scalar = string | number | boolean;
type Matcher = (event: AepEvent) => boolean;

/** A validated attr-match filter: the original JSON (for echo and storage) and its compiled predicate. */
export interface Filter {
  readonly spec: Readonly<Record<string, unknown>>;
  readonly matches: (event: AepEvent) => boolean;
}

/** Filterable core attributes (AEP-0003 §6.2 rule 1). */
const FILTERABLE = new Set([
  'id',
  'type',
  'subject',
  'source',
  'agent',
  'session',
  'run',
  'step',
  'epoch',
  'cause',
  'severity',
  'capture',
]);
/** Attributes whose AEP-0001 defaults apply before matching (AEP-0003 §6.2 rule 5). */
const DEFAULTS: Readonly<Record<string, Scalar>> = {
  severity: 'info',
  capture: 'metadata',
  epoch: 0,
};
const TYPE_PATTERN = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*(\.\*)?$/;

type Invalid = { ok: false; error: { code: 'invalid-filter'; message: string } };
const invalid = (message: string): Invalid => err('invalid-filter', message);

const isScalar = (v: unknown): v is Scalar =>
  typeof v === 'string' || typeof v === 'boolean' || Number.isInteger(v);

/** Validates a filter object (AEP-0003 §6.1–§6.2); illegal keys, patterns and comparisons are refused, never match-all. */
export function parseFilter(value: unknown): Result<Filter, 'invalid-filter'> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return invalid('AEP-0003 §6.1: a filter must be a JSON object');
  }
  const spec = value as Record<string, unknown>;
  const matchers: Matcher[] = [];
  for (const key of Object.keys(spec)) {
    if (!FILTERABLE.has(key) && !isExtensionName(key)) {
      return invalid(
        isCoreAttribute(key)
          ? `AEP-0003 §6.2 rule 1: "${key}" is not filterable`
          : `AEP-0003 §6.2 rule 1: "${key}" is neither a filterable attribute nor a legal extension attribute name`,
      );
    }
    const compiled = compileKey(key, spec[key]);
    if (!compiled.ok) return compiled;
    matchers.push(compiled.value);
  }
  const matches: Matcher =
    matchers.length === 0
      ? () => true
      : matchers.length === 1
        ? matchers[0]
        : (event) => matchers.every((m) => m(event));
  return ok({ spec, matches });
}

/** True when `event` satisfies every member of `filter` (conjunction; `{}` matches everything). */
export const matchesFilter = (filter: Filter, event: AepEvent): boolean => filter.matches(event);

function compileKey(key: string, predicate: unknown): Result<Matcher, 'invalid-filter'> {
  if (
    key === 'severity' &&
    typeof predicate === 'object' &&
    predicate !== null &&
    !Array.isArray(predicate)
  ) {
    return compileSeverityRange(predicate as Record<string, unknown>);
  }
  const values = Array.isArray(predicate) ? predicate : [predicate];
  if (values.length === 0)
    return invalid(`AEP-0003 §6.1: the inclusion array for "${key}" is empty`);
  for (const v of values) {
    if (!isScalar(v))
      return invalid(
        `AEP-0003 §6.1: "${key}" predicate ${JSON.stringify(v)} is not a string, integer or boolean`,
      );
  }
  if (key === 'type') return compileType(values as Scalar[]);
  for (const v of values) {
    if (typeof v === 'string' && v.includes('*')) {
      return invalid(
        `AEP-0003 §6.2 rule 3: patterns apply only to "type"; "${key}": ${JSON.stringify(v)} is not a pattern here`,
      );
    }
  }
  if (key === 'severity' && !values.every((v) => (SEVERITIES as readonly unknown[]).includes(v))) {
    return invalid(`AEP-0001 §8.1: severity values must be one of ${SEVERITIES.join('|')}`);
  }
  if (key === 'capture' && !values.every((v) => (CAPTURES as readonly unknown[]).includes(v))) {
    return invalid(`AEP-0001 §8.2: capture values must be one of ${CAPTURES.join('|')}`);
  }
  const set = new Set<unknown>(values);
  const fallback = DEFAULTS[key];
  if (fallback !== undefined) {
    return ok((event) => set.has(event[key] ?? fallback));
  }
  return ok((event) => {
    const actual = event[key];
    return actual !== undefined && set.has(actual);
  });
}

function compileType(values: readonly Scalar[]): Result<Matcher, 'invalid-filter'> {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const v of values) {
    if (typeof v !== 'string' || !TYPE_PATTERN.test(v)) {
      return invalid(
        `AEP-0003 §6.2 rule 3: ${JSON.stringify(v)} is not an exact type or a "prefix.*" pattern ("*" alone is not a pattern)`,
      );
    }
    if (v.endsWith('.*')) prefixes.push(v.slice(0, -1));
    else exact.add(v);
  }
  return ok((event) => {
    const type = event.type;
    if (exact.has(type)) return true;
    for (const p of prefixes) if (type.startsWith(p)) return true;
    return false;
  });
}

function compileSeverityRange(cmp: Record<string, unknown>): Result<Matcher, 'invalid-filter'> {
  const keys = Object.keys(cmp);
  if (keys.length === 0 || keys.some((k) => k !== 'gte' && k !== 'lte')) {
    return invalid(
      'AEP-0003 §6.1: a severity comparison is {"gte": Level}, {"lte": Level} or both',
    );
  }
  const rank = (bound: unknown): number => SEVERITIES.indexOf(bound as (typeof SEVERITIES)[number]);
  const lo = cmp.gte === undefined ? 0 : rank(cmp.gte);
  const hi = cmp.lte === undefined ? SEVERITIES.length - 1 : rank(cmp.lte);
  if (lo < 0 || hi < 0)
    return invalid(`AEP-0003 §6.1: severity bounds must be one of ${SEVERITIES.join('|')}`);
  return ok((event) => {
    const r = SEVERITIES.indexOf((event.severity ?? 'info') as (typeof SEVERITIES)[number]);
    return r >= lo && r <= hi;
  });
}
