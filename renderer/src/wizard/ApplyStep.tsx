/** Step 6: the writes, one agent at a time, each with the daemon's answer. */
import type { InstallPlan } from '../../../common/api';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { Badge } from '../ui/Badge';
import type { PerVendor } from './load-state';
import { StepFooter } from './StepFooter';

/** The apply step. */
export function ApplyStep({ applied, captureError, onNext, onBackToPreview }: { applied: PerVendor<InstallPlan>; captureError?: string | null; onNext: () => void; onBackToPreview: () => void }) {
  const vendors = Object.keys(applied) as VendorId[];
  const running = vendors.some((v) => applied[v]?.state === 'loading' || applied[v]?.state === 'idle');
  const okCount = vendors.filter((v) => applied[v]?.state === 'ok').length;
  const failed = vendors.filter((v) => applied[v]?.state === 'error');
  return (
    <>
      <h2 className="wz-title">{running ? 'Applying…' : failed.length === 0 ? 'Hooks installed' : okCount ? 'Partly installed' : 'Nothing was installed'}</h2>
      <ul className="wz-list" aria-label="Apply results">
        {vendors.map((v) => {
          const a = applied[v]!;
          return (
            <li key={v} className="wz-row" data-testid="apply-result" data-vendor={v} data-state={a.state}>
              <div className="wz-row-main">
                <div className="wz-row-title">
                  <strong>{VENDOR_NAMES[v]}</strong>
                  {a.state === 'ok' ? (
                    <Badge tone="ok" dot>
                      written
                    </Badge>
                  ) : a.state === 'error' ? (
                    <Badge tone="bad">failed</Badge>
                  ) : a.state === 'loading' ? (
                    <Badge tone="pending" dot>
                      writing…
                    </Badge>
                  ) : (
                    <Badge tone="muted">waiting</Badge>
                  )}
                </div>
                {a.state === 'ok' ? (
                  <ul className="wz-files small">
                    {a.value.changes.length === 0 ? <li className="muted">Already up to date; nothing written.</li> : null}
                    {a.value.changes.map((c) => (
                      <li key={c.path} className="mono">
                        {c.path}
                      </li>
                    ))}
                  </ul>
                ) : null}
                {a.state === 'error' ? <p className="error-text small">{a.error}</p> : null}
              </div>
            </li>
          );
        })}
      </ul>
      {captureError ? <p className="error-text small">The capture level could not be saved: {captureError}</p> : null}
      {!running && okCount > 0 ? <p className="small muted">Backups of the original files and a record of every entry written are kept in the companion’s data directory; each write is in the audit log.</p> : null}
      <StepFooter note={running ? 'Writing one file set at a time.' : undefined}>
        {!running && failed.length ? (
          <button type="button" className="btn" onClick={onBackToPreview}>
            Back to the preview
          </button>
        ) : null}
        <button type="button" className="btn btn-primary" onClick={onNext} disabled={running || okCount === 0} data-testid="wizard-next">
          Check the connection
        </button>
      </StepFooter>
    </>
  );
}
