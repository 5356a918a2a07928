/** Inputs for a form request (AEP-0006 field_spec): string, number, boolean, select (single, multi, other). */
import type { FieldSpec } from '../../model/attention-items';

/** Values keyed by field id, as control.attention.respond carries them. */
export type FormValues = Record<string, string | number | boolean | string[]>;

/** Missing required fields, by label. */
export function missingRequired(fields: readonly FieldSpec[], values: FormValues): string[] {
  return fields
    .filter((f) => f.required)
    .filter((f) => {
      const v = values[f.id];
      return v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
    })
    .map((f) => f.label);
}

/** The fields. */
export function FormFields({ fields, values, onChange, idPrefix }: { fields: readonly FieldSpec[]; values: FormValues; onChange: (v: FormValues) => void; idPrefix: string }) {
  const set = (id: string, value: FormValues[string] | undefined) => {
    const next = { ...values };
    if (value === undefined || value === '') delete next[id];
    else next[id] = value;
    onChange(next);
  };
  return (
    <div className="form-fields">
      {fields.map((f) => {
        const id = `${idPrefix}-${f.id}`;
        const label = (
          <span className="field-label">
            {f.label}
            {f.required ? <span className="required" aria-label="required"> *</span> : null}
          </span>
        );
        if (f.type === 'boolean') {
          return (
            <label key={f.id} className="field field-check" htmlFor={id}>
              <input id={id} type="checkbox" checked={values[f.id] === true} onChange={(e) => set(f.id, e.target.checked)} />
              {label}
            </label>
          );
        }
        if (f.type === 'number') {
          return (
            <label key={f.id} className="field" htmlFor={id}>
              {label}
              <input id={id} className="input" type="number" min={f.min} max={f.max} value={typeof values[f.id] === 'number' ? String(values[f.id]) : ''} onChange={(e) => set(f.id, e.target.value === '' ? undefined : Number(e.target.value))} />
            </label>
          );
        }
        if (f.type === 'select') {
          const choices = f.choices ?? [];
          if (f.multi) {
            const current = Array.isArray(values[f.id]) ? (values[f.id] as string[]) : [];
            return (
              <fieldset key={f.id} className="field">
                <legend>{label}</legend>
                {choices.map((c) => (
                  <label key={c.id} className="field-check">
                    <input type="checkbox" checked={current.includes(c.id)} onChange={(e) => set(f.id, e.target.checked ? [...current, c.id] : current.filter((x) => x !== c.id))} />
                    {c.label}
                  </label>
                ))}
              </fieldset>
            );
          }
          const current = typeof values[f.id] === 'string' ? (values[f.id] as string) : '';
          const isOther = current !== '' && !choices.some((c) => c.id === current);
          return (
            <fieldset key={f.id} className="field">
              <legend>{label}</legend>
              {choices.map((c) => (
                <label key={c.id} className="field-check">
                  <input type="radio" name={id} checked={current === c.id} onChange={() => set(f.id, c.id)} />
                  {c.label}
                </label>
              ))}
              {f.other ? <input className="input" aria-label={`${f.label}: other answer`} placeholder="Other…" value={isOther ? current : ''} onChange={(e) => set(f.id, e.target.value)} /> : null}
            </fieldset>
          );
        }
        return (
          <label key={f.id} className="field" htmlFor={id}>
            {label}
            <input id={id} className="input" value={typeof values[f.id] === 'string' ? (values[f.id] as string) : ''} onChange={(e) => set(f.id, e.target.value)} />
          </label>
        );
      })}
    </div>
  );
}
