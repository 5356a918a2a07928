/** Step 4: how much of each session the companion keeps, explained in plain words, with the recommended level preselected. */
import type { Capture } from '../../../common/aep/envelope';
import { CAPTURE_LEVELS, RECOMMENDED_CAPTURE } from './capture-levels';
import { StepFooter } from './StepFooter';

/** The capture step; the choice is saved with Apply. */
export function CaptureStep({ value, current, onChange, onBack, onNext }: { value: Capture; current: Capture | null; onChange: (c: Capture) => void; onBack: (() => void) | null; onNext: () => void }) {
  return (
    <>
      <h2 className="wz-title">What should the companion keep?</h2>
      <p className="wz-lead">
        Everything stays on this machine, in the companion’s own database; nothing is sent anywhere. This decides how much of each session you can read back
        later. You can change it any time in Settings (it applies to new events).
      </p>
      <div className="wz-capture" role="radiogroup" aria-label="Capture level">
        {CAPTURE_LEVELS.map((l) => (
          <label key={l.level} className={`wz-scope-option wz-capture-option${value === l.level ? ' wz-scope-on' : ''}`} data-testid="capture-option" data-level={l.level}>
            <input type="radio" name="capture" checked={value === l.level} onChange={() => onChange(l.level)} />
            <span>
              <strong>
                {l.title} <span className="muted small mono">({l.level})</span>
                {l.level === RECOMMENDED_CAPTURE ? <span className="wz-recommended">recommended</span> : null}
              </strong>
              <span className="small muted">{l.shows}</span>
            </span>
          </label>
        ))}
      </div>
      <StepFooter onBack={onBack} note={current && current !== value ? `Now: ${current}. Apply saves ${value}.` : 'Saved when you press Apply.'}>
        <button type="button" className="btn btn-primary" onClick={onNext} data-testid="wizard-next">
          Next: steering
        </button>
      </StepFooter>
    </>
  );
}
