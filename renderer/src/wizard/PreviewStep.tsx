/** Step 5: the exact change per agent, file by file, with the installer's warnings, before anything is written. */
import type { InstallPlan } from '../../../common/api';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { Badge } from '../ui/Badge';
import { DiffView } from './DiffView';
import type { PerVendor } from './load-state';
import { StepFooter } from './StepFooter';
import { Ticked } from './Ticked';
import { isLauncherFile } from './wizard-model';

/** The settings files first, the companion's own launcher scripts (collapsed) after them. */
const settingsFirst = (changes: InstallPlan['changes']): InstallPlan['changes'] =>
  [...changes].sort((a, b) => Number(isLauncherFile(a.path)) - Number(isLauncherFile(b.path)));

function PlanCard({ vendor, plan }: { vendor: VendorId; plan: InstallPlan }) {
  const o = plan.options;
  return (
    <>
      <p className="small muted wz-plan-sub">
        {o.scope === 'project' ? `Project ${o.project}` : 'Your user settings'} · steering {o.instruct ? 'opted in' : 'not opted in'} · permission prompts{' '}
        {o.permissions ? 'opted in' : 'not opted in'}
        {o.transport ? ` · ${o.transport === 'http' ? 'HTTP hooks' : 'launcher script'}` : ''}
      </p>
      {plan.retrustRequired ? (
        <div className="wz-alert wz-alert-warn" role="note" data-testid="retrust">
          <strong>{VENDOR_NAMES[vendor]} will ask you to trust its hooks again.</strong> Until you approve them in {VENDOR_NAMES[vendor]}, they do not run (see
          the notes below).
        </div>
      ) : null}
      {plan.warnings.length ? (
        <ul className="wz-warnings" aria-label={`${VENDOR_NAMES[vendor]} notes`} data-testid="plan-warnings">
          {plan.warnings.map((w) => (
            <li key={w}>
              <Ticked text={w} />
            </li>
          ))}
        </ul>
      ) : null}
      {plan.changes.length === 0 ? <p className="muted">Nothing to change: these hooks are already installed exactly like this.</p> : settingsFirst(plan.changes).map((c) => <DiffView key={c.path} change={c} />)}
    </>
  );
}

/** The preview step; `onApply` receives the vendors whose plan the daemon produced. */
export function PreviewStep({ plans, onBack, onApply }: { plans: PerVendor<InstallPlan>; onBack: (() => void) | null; onApply: (vendors: VendorId[]) => void }) {
  const vendors = Object.keys(plans) as VendorId[];
  const ready = vendors.filter((v) => plans[v]?.state === 'ok');
  const pending = vendors.some((v) => plans[v]?.state === 'loading');
  const failed = vendors.filter((v) => plans[v]?.state === 'error');
  return (
    <>
      <h2 className="wz-title">Preview the changes</h2>
      <p className="wz-lead">
        This is exactly what Apply writes. Lines starting with + are added; your existing settings and hooks are kept. Each original file is backed up first,
        and uninstalling removes exactly these entries.
      </p>
      {vendors.length > 1 ? (
        <ul className="wz-summary" aria-label="Summary">
          {vendors.map((v) => {
            const p = plans[v]!;
            return (
              <li key={v}>
                <a href={`#plan-${v}`} onClick={(e) => {
                    // Hash links would change the route: scroll inside the view instead.
                    e.preventDefault();
                    document.getElementById(`plan-${v}`)?.scrollIntoView({ block: 'start' });
                  }}>
                  {VENDOR_NAMES[v]}
                </a>
                {p.state === 'ok' ? <span className="muted"> · {p.value.changes.length} files</span> : null}
                {p.state === 'ok' && p.value.retrustRequired ? <Badge tone="warn">will ask to trust its hooks again</Badge> : null}
                {p.state === 'error' ? <Badge tone="bad">cannot install</Badge> : null}
              </li>
            );
          })}
        </ul>
      ) : null}
      {vendors.map((v) => {
        const p = plans[v]!;
        return (
          <section key={v} id={`plan-${v}`} className="wz-plan" aria-label={`${VENDOR_NAMES[v]} changes`} data-testid="plan" data-vendor={v} data-state={p.state}>
            <h3 className="wz-plan-title">
              {VENDOR_NAMES[v]}
              {p.state === 'ok' ? <Badge tone="neutral">{p.value.changes.length} files</Badge> : null}
              {p.state === 'error' ? <Badge tone="bad">cannot install</Badge> : null}
            </h3>
            {p.state === 'loading' || p.state === 'idle' ? <p className="muted">Planning…</p> : null}
            {p.state === 'error' ? (
              <div className="wz-alert wz-alert-bad" role="alert">
                {p.error}
              </div>
            ) : null}
            {p.state === 'ok' ? <PlanCard vendor={v} plan={p.value} /> : null}
          </section>
        );
      })}
      <StepFooter onBack={onBack} note={failed.length && ready.length ? `${failed.map((v) => VENDOR_NAMES[v]).join(', ')} will be skipped.` : 'Nothing has been written yet.'}>
        <button type="button" className="btn btn-primary" disabled={pending || ready.length === 0} onClick={() => onApply(ready)} data-testid="wizard-apply">
          Apply {ready.length === 1 ? 'this change' : 'these changes'}
        </button>
      </StepFooter>
    </>
  );
}
