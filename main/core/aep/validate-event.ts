/** Event validation: the AEP JSON Schemas plus the rules they cannot express (AEP-0001 §5–§8, AEP-0002 §7.1). */
import type { ErrorObject } from 'ajv/dist/2020.js';
import type { AepEvent } from '../../../common/aep/envelope';
import { err, ok, type Result } from '../../../common/result';
import { captureViolation } from './capture-honor';
import { parseBoundedJson } from './bounded-json';
import { CORE_ATTRIBUTES, isCoreAttribute } from './core-attributes';
import { envelopeBoundsError } from './envelope-bounds';
import { diagnosticValidators, fastValidators, reportable } from './schema-validators';
import { typeGrammarError } from './type-grammar';

type Invalid = Result<never, 'invalid-event'>;
const invalid = (message: string): Invalid => err('invalid-event', message);

const REQUIRED = ['aep', 'id', 'type', 'time', 'source', 'agent'] as const;
const EXTENSION_NAME = /^[a-z0-9]{1,20}$/;
const FOREIGN_EMITTER =
  /^(control\.attention\.respond|control\.cancel|control\.pause|control\.resume|x\.[a-z0-9_-]+\.control\..+|attention\.routed)$/;
/** Attention lifecycle events after the request, which must name it in `subject` (AEP-0002 §7.1). */
const ATTENTION_FOLLOWERS = new Set([
  'attention.routed',
  'attention.answered',
  'attention.resolved',
  'attention.timeout',
]);

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Validates one event: the envelope schema, the registered payload schema for its type, and the rules the
 * schemas cannot express. The error message cites the failing rule (e.g. "AEP-0001 §5.2: ...").
 */
export function validateEvent(value: unknown): Result<AepEvent, 'invalid-event'> {
  if (!isPlainObject(value)) return invalid('AEP-0001 §5: an event must be a JSON object');
  const bounds = envelopeBoundsError(value);
  if (bounds !== undefined) return invalid(bounds);
  const v = fastValidators();
  if (!v.envelope(value)) return invalid(describeEnvelope(value));
  const type = value.type as string;
  const data = value.data;
  if (data !== undefined) {
    const payload = v.payload(type);
    if (payload !== undefined && !payload(data))
      return invalid(describePayload(type, payload.errors));
    const leak = captureViolation(value as AepEvent);
    if (leak !== undefined) return invalid(leak);
  }
  if (ATTENTION_FOLLOWERS.has(type) && value.subject === undefined) {
    return invalid(`AEP-0002 §7.1: ${type} must set subject to the id of its attention.requested`);
  }
  if (type === 'resource.citation.recorded' && data !== undefined) {
    const error = citationOffsetError(data as Record<string, unknown>);
    if (error !== undefined) return invalid(error);
  }
  return ok(value as AepEvent);
}

/**
 * Parses one JSON text (nesting bounded, `bounded-json.ts`) and validates it as an event; malformed
 * or too deeply nested JSON gets its own clear message.
 */
export function parseEventJson(text: string): Result<AepEvent, 'invalid-event'> {
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) return invalid(parsed.error.message);
  return validateEvent(parsed.value);
}

/** At most one offset variant per citation (AEP-0002 §5.2 `citation`); the open schema cannot close this. */
function citationOffsetError(data: Record<string, unknown>): string | undefined {
  const citations = data.citations;
  if (!Array.isArray(citations)) return undefined;
  for (let i = 0; i < citations.length; i++) {
    const offset = (citations[i] as Record<string, unknown> | null)?.offset;
    if (!isPlainObject(offset)) continue;
    const populated = ['char', 'page', 'block'].filter((k) => offset[k] !== undefined);
    if (populated.length > 1) {
      return `AEP-0002 §5.2 citation: data/citations/${i}/offset populates ${populated.join(' and ')} (at most one variant)`;
    }
  }
  return undefined;
}

/** Names the envelope rule `value` breaks, checking the rules in a fixed order so the message is deterministic. */
function describeEnvelope(value: Record<string, unknown>): string {
  for (const key of Object.keys(value)) {
    if (value[key] === null && isCoreAttribute(key)) {
      return `AEP-0001 §5.1 #${CORE_ATTRIBUTES[key]}: ${key} is null; absent attributes must be omitted, not set to null`;
    }
  }
  for (const key of Object.keys(value)) {
    if (isCoreAttribute(key)) continue;
    if (!EXTENSION_NAME.test(key)) {
      return `AEP-0001 §5.4: extension attribute name "${key}" must match [a-z0-9]{1,20} (lowercase alphanumeric, at most 20 characters)`;
    }
    const ext = value[key];
    if (!(typeof ext === 'string' || typeof ext === 'boolean' || Number.isInteger(ext))) {
      return `AEP-0001 §5.4: extension attribute "${key}" must carry a string, integer or boolean (scalar values only), got ${describeKind(ext)}`;
    }
  }
  if (value.aep !== undefined && value.aep !== '0.1') {
    return `AEP-0001 §5.1 #1: unsupported envelope version ${JSON.stringify(value.aep)} (this validator implements the 0.1 schema)`;
  }
  for (const key of REQUIRED) {
    if (value[key] === undefined)
      return `AEP-0001 §5.1 #${CORE_ATTRIBUTES[key]}: required attribute ${key} is missing`;
  }
  if (typeof value.type === 'string') {
    const grammar = typeGrammarError(value.type);
    if (grammar !== undefined) return grammar;
  }
  const v = diagnosticValidators();
  v.envelope(value);
  const errors = reportable(v.envelope.errors);
  const scoped = (e: ErrorObject): boolean => e.schemaPath.startsWith('#/allOf');
  const attributeError = errors.find((e) => !scoped(e));
  if (attributeError !== undefined) return describeAttribute(attributeError);
  const scopeError = errors.find(scoped);
  if (scopeError !== undefined) return describeScope(String(value.type), scopeError);
  return 'AEP-0001 §5: the event does not match the envelope schema';
}

function describeAttribute(e: ErrorObject): string {
  const attr = e.instancePath.split('/')[1] ?? '';
  const detail = `${e.message ?? 'is invalid'}${allowed(e)}`;
  switch (attr) {
    case 'severity':
      return `AEP-0001 §8.1 (§5.1 #15): severity ${detail}`;
    case 'capture':
      return `AEP-0001 §8.2 (§5.1 #16): capture ${detail}`;
    case 'traceparent':
      return 'AEP-0001 §5.1 #14: traceparent must be a W3C Trace Context value (00-<32 hex>-<16 hex>-<2 hex>)';
    case '':
      return `AEP-0001 §5: the event ${detail}`;
    default:
      if (isCoreAttribute(attr))
        return `AEP-0001 §5.1 #${CORE_ATTRIBUTES[attr]}: ${attr} ${detail}`;
      return `AEP-0001 §5.4: extension attribute "${attr}" ${detail}`;
  }
}

function describeScope(type: string, e: ErrorObject): string {
  const attr =
    e.keyword === 'required' ? String(e.params.missingProperty) : e.instancePath.slice(1);
  const present = e.keyword !== 'required';
  if (type.startsWith('agent.')) {
    return `AEP-0001 §5.2: agent-scoped event ${type} must omit session, run, step and seq (found ${attr})`;
  }
  if (FOREIGN_EMITTER.test(type)) {
    return present
      ? `AEP-0001 §5.2 foreign-emitter exception (AEP-0004 §2.2 commands, AEP-0002 §7.3 attention.routed): ${type} must omit ${attr}`
      : `AEP-0001 §5.2: foreign-emitter session event ${type} must carry ${attr}`;
  }
  return `AEP-0001 §5.2: session-scoped event ${type} must carry ${attr}`;
}

/** Names the first payload-schema failure for `type`. */
function describePayload(
  type: string,
  fastErrors: readonly ErrorObject[] | null | undefined,
): string {
  const first = reportable(fastErrors)[0];
  if (first === undefined) return `AEP-0002 §5 payload schema (${type}): data is invalid`;
  return `AEP-0002 §5 payload schema (${type}): data${first.instancePath} ${first.message ?? 'is invalid'}${allowed(first)}`;
}

const allowed = (e: ErrorObject): string =>
  e.keyword === 'enum' && Array.isArray(e.params.allowedValues)
    ? ` (${e.params.allowedValues.join('|')})`
    : '';

const describeKind = (v: unknown): string =>
  v === null
    ? 'null'
    : Array.isArray(v)
      ? 'an array'
      : typeof v === 'number'
        ? 'a non-integer number'
        : typeof v === 'object'
          ? 'an object'
          : `a ${typeof v}`;
