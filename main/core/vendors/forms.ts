/**
 * Structured-input forms (AEP-0006): the field specs built from vendor questions, and the checks and
 * capture gating of `answer.values`. Labels are model or server content: structural ids at metadata.
 */
import { gateFormValues } from '../aep';
import type { Gate } from './capture-gate';
import { compact, isObject, str, type JsonObject } from './payload-fields';

/** One choice of a select field. */
export interface FormChoice {
  readonly id: string;
  readonly label: string;
}

/** One `field_spec` (AEP-0002 §5.2). */
export interface FormField {
  readonly id: string;
  readonly type: 'string' | 'number' | 'boolean' | 'select';
  readonly label: string;
  readonly required: boolean;
  readonly other?: boolean;
  readonly multi?: boolean;
  readonly choices?: readonly FormChoice[];
}

/** A field spec with its labels gated: content at redacted and above, the structural id below. */
export const gateField = (field: FormField, gate: Gate): Record<string, unknown> =>
  compact({
    id: field.id,
    type: field.type,
    label: gate.text(field.label) ?? field.id,
    required: field.required,
    other: field.other,
    choices: field.choices?.map((choice) => ({
      id: choice.id,
      label: gate.text(choice.label) ?? choice.id,
    })),
    multi: field.multi,
  });

/** The questions of a Claude Code AskUserQuestion call, or undefined when the input has none. */
export const askUserQuestionFields = (input: unknown): FormField[] | undefined => {
  const questions = isObject(input) && Array.isArray(input.questions) ? input.questions : undefined;
  if (questions === undefined || questions.length === 0 || !questions.every(isObject))
    return undefined;
  return (questions as JsonObject[]).map((question, index) => {
    const header = str(question, 'header');
    const text = str(question, 'question') ?? '';
    const options = Array.isArray(question.options) ? question.options.filter(isObject) : [];
    return compact({
      id: String(index + 1),
      type: 'select',
      label: header !== undefined && header !== '' ? `${header}: ${text}` : text,
      required: true,
      // The tool always offers its own free-text "Other" answer.
      other: true,
      choices: options.map((option, choice) => ({
        id: String(choice + 1),
        label: str(option, 'label') ?? '',
      })),
      multi: question.multiSelect === true ? true : undefined,
    }) as unknown as FormField;
  });
};

/** The fields of an MCP elicitation's restricted flat schema: ids are property keys, enums are closed. */
export const elicitationFields = (schema: unknown): FormField[] => {
  const properties = isObject(schema) && isObject(schema.properties) ? schema.properties : {};
  const required = isObject(schema) && Array.isArray(schema.required) ? schema.required : [];
  return Object.entries(properties).map(([key, spec]) => {
    const property = isObject(spec) ? spec : {};
    const label = str(property, 'title') ?? key;
    const base = { id: key, label, required: required.includes(key) };
    if (Array.isArray(property.enum)) {
      const names = Array.isArray(property.enumNames) ? property.enumNames : [];
      const choices = property.enum.map((value, index) => {
        const id = String(value);
        const name = names[index];
        return { id, label: typeof name === 'string' ? name : id };
      });
      return { ...base, type: 'select', choices };
    }
    const type =
      property.type === 'integer' || property.type === 'number'
        ? 'number'
        : property.type === 'boolean'
          ? 'boolean'
          : 'string';
    return { ...base, type };
  });
};

/** Clarify choices as the vendor normalizes them before showing them: unwrap, trim, drop empties, at most four. */
export const clarifyChoices = (choices: unknown): string[] => {
  if (!Array.isArray(choices)) return [];
  const flatten = (choice: unknown): string => {
    if (typeof choice === 'string') return choice.trim();
    if (Array.isArray(choice))
      return choice
        .map(flatten)
        .filter((part) => part !== '')
        .join(', ');
    if (isObject(choice)) {
      for (const key of ['label', 'description', 'text', 'title']) {
        const value = str(choice, key);
        if (value !== undefined) return value.trim();
      }
      return '';
    }
    return choice === null || choice === undefined ? '' : String(choice).trim();
  };
  return choices
    .map(flatten)
    .filter((choice) => choice !== '')
    .slice(0, 4);
};

/**
 * Gates answered values (AEP-0006): choice ids, numbers and booleans are structural at any ceiling;
 * free text (string fields, "Other" answers) needs `redacted` and passes the redaction pipeline there.
 */
export const gateAnsweredValues = (
  fields: readonly FormField[],
  values: Readonly<Record<string, unknown>>,
  gate: Gate,
): Record<string, unknown> => {
  const kept = gateFormValues(fields, values, gate.ceiling);
  const byId = new Map(fields.map((field) => [field.id, field]));
  const text = (field: FormField | undefined, value: unknown): unknown =>
    typeof value === 'string' && !(field?.choices ?? []).some((choice) => choice.id === value)
      ? (gate.text(value) ?? value)
      : value;
  return Object.fromEntries(
    Object.entries(kept).map(([id, value]) => [
      id,
      Array.isArray(value)
        ? value.map((item) => text(byId.get(id), item))
        : text(byId.get(id), value),
    ]),
  );
};
