/** Step 8: setup is recorded as finished (the daemon confirmed the setting); what to do next. */
import type { InstallPlan } from '../../../common/api';
import type { Settings } from '../../../common/settings';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { dateTime } from '../ui/format';
import type { Load, PerVendor } from './load-state';
import { StepFooter } from './StepFooter';

/** The done step. */
export function DoneStep({ settings, vendors, applied }: { settings: Load<Settings>; vendors: readonly VendorId[]; applied: PerVendor<InstallPlan> }) {
  const completedAt = settings.state === 'ok' ? settings.value['setup.completedAt'] : null;
  const steerable = vendors.filter((v) => {
    const a = applied[v];
    return a?.state === 'ok' && a.value.options.instruct;
  });
  return (
    <>
      <h2 className="wz-title">You’re set up</h2>
      <p className="wz-lead" data-testid="wizard-done" data-completed-at={completedAt ?? ''}>
        {vendors.length ? `Hooks installed for ${vendors.map((v) => VENDOR_NAMES[v]).join(', ')}.` : 'No hooks were installed this time.'}{' '}
        {completedAt ? <span className="muted">Setup recorded {dateTime(completedAt)}.</span> : null}
      </p>
      <ul className="wz-points">
        <li>New sessions appear in <a href="#/sessions">Sessions</a> as soon as their first hook arrives.</li>
        {steerable.length ? (
          <li>
            To instruct {steerable.map((v) => VENDOR_NAMES[v]).join(', ')}, turn on <strong>Steering</strong> in the header, open a session and write in its
            composer. Turning the switch off stops delivery at once.
          </li>
        ) : (
          <li>Steering was not opted in for any agent; run setup again from Settings to change that.</li>
        )}
        <li>
          To undo, run <code>aep-companion uninstall --vendor &lt;agent&gt;</code>: it removes exactly the entries written here.
        </li>
      </ul>
      <StepFooter>
        <a className="btn btn-primary" href="#/sessions" data-testid="wizard-open-console">
          Open the console
        </a>
      </StepFooter>
    </>
  );
}
