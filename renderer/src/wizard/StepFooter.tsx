/** The bottom row of a wizard step: Back on the left, the step's actions on the right. */
import type { ReactNode } from 'react';

/** The footer. */
export function StepFooter({ onBack, children, note }: { onBack?: (() => void) | null; children: ReactNode; note?: ReactNode }) {
  return (
    <div className="wz-footer">
      {onBack ? (
        <button type="button" className="btn btn-ghost" onClick={onBack}>
          ← Back
        </button>
      ) : null}
      <span className="wz-footer-note small muted">{note}</span>
      {children}
    </div>
  );
}
