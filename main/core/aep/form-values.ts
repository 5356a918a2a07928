/** Form answers (AEP-0006, AEP-0002 §5.3): type-dependent capture gating of `answer.values` and the emitter's reject rule. */
import { captureRank, type Capture } from '../../../common/aep/envelope';
import { err, ok, type Result } from '../../../common/result';

/** One typed field of a `kind: "form"` attention request (AEP-0002 §5.2 `field_spec`). */
export interface FieldSpec {
  readonly id: string;
  readonly type: 'string' | 'number' | 'boolean' | 'select';
  readonly label: string;
  readonly required?: boolean;
  readonly multi?: boolean;
  readonly other?: boolean;
  readonly choices?: ReadonlyArray<{ readonly id: string; readonly label: string }>;
  readonly min?: number;
  readonly max?: number;
}

const isChoice = (field: FieldSpec, v: unknown): boolean =>
  typeof v === 'string' && (field.choices ?? []).some((c) => c.id === v);

/** True when the value is structural (metadata-level): a number, a boolean, or closed-select choice ids. */
function isStructural(field: FieldSpec, value: unknown): boolean {
  switch (field.type) {
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'select':
      return Array.isArray(value) ? value.every((v) => isChoice(field, v)) : isChoice(field, value);
    default:
      return false;
  }
}

/**
 * Gates form `values` for a capture ceiling: structural values pass at any level; free text (string fields, `other`
 * text on a select) needs `redacted` or above. Keys without a matching field spec are dropped. Dropping `data` at
 * ceiling `none` is the envelope's job, not this function's.
 */
export function gateFormValues(
  fields: readonly FieldSpec[],
  values: Readonly<Record<string, unknown>>,
  ceiling: Capture,
): Record<string, unknown> {
  const byId = new Map(fields.map((f) => [f.id, f]));
  const textAllowed = captureRank(ceiling) >= captureRank('redacted');
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    const field = byId.get(key);
    if (field === undefined) continue;
    if (textAllowed || isStructural(field, value)) out[key] = value;
  }
  return out;
}

/**
 * Gates form `values` with no field specs at hand (a fan-out hop): only numbers and booleans are certainly structural,
 * so strings and arrays drop below `redacted` (dropping more than required is always legal, AEP-0001 §8.2b).
 */
export function gateFormValuesBlind(
  values: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(values)) {
    if (typeof value === 'number' || typeof value === 'boolean') out[key] = value;
  }
  return out;
}

/**
 * The emitter's reject rule for a form answer (AEP-0002 §5.3): every required field covered, each value of its
 * field's type, and select answers restricted to choice ids unless `other: true`.
 */
export function checkFormAnswer(
  fields: readonly FieldSpec[],
  values: Readonly<Record<string, unknown>>,
): Result<void, 'invalid'> {
  for (const field of fields) {
    const value = values[field.id];
    if (value === undefined) {
      if (field.required === true)
        return err('invalid', `required field "${field.id}" has no value`);
      continue;
    }
    const problem = valueProblem(field, value);
    if (problem !== undefined) return err('invalid', `field "${field.id}": ${problem}`);
  }
  for (const key of Object.keys(values)) {
    if (!fields.some((f) => f.id === key))
      return err('invalid', `"${key}" is not a field of this form`);
  }
  return ok(undefined);
}

function valueProblem(field: FieldSpec, value: unknown): string | undefined {
  switch (field.type) {
    case 'string':
      return typeof value === 'string' ? undefined : 'expects a string';
    case 'number':
      if (typeof value !== 'number') return 'expects a number';
      if (field.min !== undefined && value < field.min) return `is below the minimum ${field.min}`;
      if (field.max !== undefined && value > field.max) return `is above the maximum ${field.max}`;
      return undefined;
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'expects a boolean';
    case 'select': {
      const answers = field.multi === true && Array.isArray(value) ? value : [value];
      if (field.multi !== true && Array.isArray(value))
        return 'is single-select: expects one choice id';
      for (const a of answers) {
        if (typeof a !== 'string') return 'expects choice id strings';
        if (!isChoice(field, a) && field.other !== true) {
          return `${JSON.stringify(a)} is not a choice id and the field does not allow other text`;
        }
      }
      return undefined;
    }
    default:
      return 'has an unknown field type';
  }
}
