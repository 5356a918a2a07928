/** Building blocks of the settings view: a labelled row, and a validated number input with a unit. */
import { useEffect, useId, useState, type ReactNode } from 'react';

/** One setting: label and help on the left, the control on the right. */
export function Row({ label, help, children, htmlFor }: { label: string; help?: ReactNode; children: ReactNode; htmlFor?: string }) {
  return (
    <div className="setting">
      <div className="setting-text">
        <label className="setting-label" htmlFor={htmlFor}>{label}</label>
        {help ? <div className="setting-help small muted">{help}</div> : null}
      </div>
      <div className="setting-control">{children}</div>
    </div>
  );
}

/** Why a typed value cannot be saved, or null when it can (whole numbers of at least `min`). */
export function numberProblem(text: string, min: number, unit: string): string | null {
  const trimmed = text.trim();
  if (trimmed === '') return `Enter a number of ${unit}.`;
  const n = Number(trimmed);
  if (!Number.isFinite(n) || !Number.isInteger(n)) return `Enter a whole number of ${unit}.`;
  if (n < min) return `Enter at least ${min.toLocaleString('en-US')}.`;
  return null;
}

/** What a save reports back: null when saved, else the daemon's reason. */
export type SaveResult = string | null | void;

/**
 * A number input that saves on blur or Enter, in a display unit. A value that is not a whole
 * number of at least `min` is not sent and says why next to the field; a value the daemon
 * refuses (its ranges are the authority) shows the daemon's reason there, and the field keeps
 * what was typed so it can be corrected.
 */
export function NumberSetting({ id, value, unit, scale = 1, min, onSave }: { id: string; value: number; unit: string; scale?: number; min: number; onSave: (v: number) => SaveResult | Promise<SaveResult> }) {
  const [text, setText] = useState(String(value / scale));
  const [problem, setProblem] = useState<string | null>(null);
  const errorId = `${useId()}-error`;
  useEffect(() => {
    setText(String(value / scale));
    setProblem(null);
  }, [value, scale]);
  const commit = async () => {
    const local = numberProblem(text, min, unit || 'units');
    if (local !== null) {
      setProblem(local);
      return;
    }
    const n = Math.round(Number(text) * scale);
    if (n === value) {
      setProblem(null);
      return;
    }
    const refused = await onSave(n);
    setProblem(typeof refused === 'string' ? refused : null);
  };
  return (
    <span className="number-setting-wrap">
      <span className="number-setting">
        <input
          id={id}
          className="input input-number"
          type="number"
          inputMode="numeric"
          min={min}
          step={1}
          value={text}
          aria-invalid={problem !== null}
          aria-describedby={problem !== null ? errorId : undefined}
          onChange={(e) => setText(e.target.value)}
          onBlur={() => void commit()}
          onKeyDown={(e) => e.key === 'Enter' && void commit()}
        />
        {unit ? <span className="muted small">{unit}</span> : null}
      </span>
      {problem !== null ? (
        <span id={errorId} className="field-error small" data-testid={`${id}-error`}>
          {problem}
        </span>
      ) : null}
    </span>
  );
}
