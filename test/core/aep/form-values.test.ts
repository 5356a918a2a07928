import { describe, expect, it } from 'vitest';
import { checkFormAnswer, gateFormValues, type FieldSpec } from '../../../main/core/aep';
import type { Capture } from '../../../common/aep/envelope';
import { fixture } from './corpus';

interface GatingCase {
  readonly name: string;
  readonly fields: FieldSpec[];
  readonly values: Record<string, unknown>;
  readonly ceiling: Capture;
  readonly expect: Record<string, unknown>;
}
const cases = fixture<{ cases: GatingCase[] }>('capture-gating/cases.json').cases;

describe('capture-gating corpus (capture-gating/cases.json)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(gateFormValues(c.fields, c.values, c.ceiling)).toEqual(c.expect);
  });
});

describe('checkFormAnswer (the emitter reject rule)', () => {
  const fields: FieldSpec[] = [
    { id: 'name', type: 'string', label: 'Name', required: true },
    { id: 'n', type: 'number', label: 'N', min: 1, max: 5 },
    {
      id: 'db',
      type: 'select',
      label: 'DB',
      choices: [
        { id: '1', label: 'PostgreSQL' },
        { id: '2', label: 'SQLite' },
      ],
    },
    {
      id: 'tags',
      type: 'select',
      label: 'Tags',
      multi: true,
      other: true,
      choices: [{ id: 'a', label: 'A' }],
    },
  ];
  const verdict = (values: Record<string, unknown>): string => {
    const r = checkFormAnswer(fields, values);
    return r.ok ? 'ok' : r.error.message;
  };

  it('accepts a complete, well-typed answer, including other text where allowed', () => {
    expect(verdict({ name: 'svc', n: 3, db: '2', tags: ['a', 'custom'] })).toBe('ok');
  });

  it('rejects a missing required field, a forged choice, a wrong type, a range breach and an unknown key', () => {
    expect(verdict({ n: 3 })).toBe('required field "name" has no value');
    expect(verdict({ name: 'x', db: 'MariaDB' })).toBe(
      'field "db": "MariaDB" is not a choice id and the field does not allow other text',
    );
    expect(verdict({ name: 'x', n: '3' })).toBe('field "n": expects a number');
    expect(verdict({ name: 'x', n: 9 })).toBe('field "n": is above the maximum 5');
    expect(verdict({ name: 'x', db: ['1'] })).toBe(
      'field "db": is single-select: expects one choice id',
    );
    expect(verdict({ name: 'x', extra: 1 })).toBe('"extra" is not a field of this form');
  });
});
