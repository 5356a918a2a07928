/** The wizard's progress rail: every step by name, the current one marked. */
import { STEP_LABELS, STEPS, type StepId } from './wizard-model';

/** The rail. */
export function StepRail({ current }: { current: StepId }) {
  const at = STEPS.indexOf(current);
  return (
    <ol className="wz-rail" aria-label="Setup steps">
      {STEPS.map((s, i) => (
        <li key={s} className={`wz-rail-step${i < at ? ' wz-rail-done' : ''}${i === at ? ' wz-rail-current' : ''}`} aria-current={i === at ? 'step' : undefined}>
          <span className="wz-rail-dot" aria-hidden="true">
            {i < at ? '✓' : i + 1}
          </span>
          <span className="wz-rail-label">{STEP_LABELS[s]}</span>
        </li>
      ))}
    </ol>
  );
}
