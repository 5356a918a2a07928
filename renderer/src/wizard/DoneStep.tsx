/** Step 8: setup is recorded as finished (the daemon confirmed the setting); what to do next. */
import type { InstallPlan } from '../../../common/api';
import type { Settings } from '../../../common/settings';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { dateTime } from '../ui/format';
import type { Load, PerVendor } from './load-state';
import { CommandLineOffer, commandPrefix, quoted, useCommandLine } from './CommandLineOffer';
import { CopyButton } from './CopyButton';
import { StepFooter } from './StepFooter';

/** The done step. */
export function DoneStep({ settings, vendors, applied }: { settings: Load<Settings>; vendors: readonly VendorId[]; applied: PerVendor<InstallPlan> }) {
  const [line, setLine] = useCommandLine();
  const cli = commandPrefix(line.state === 'ok' ? line.value : null);
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
        <li data-testid="wizard-openhands">
          OpenHands has no hooks: connect its agent server in <a href="#/settings">Settings → OpenHands</a>, or run{' '}
          <code>{cli} openhands connect --url URL --key-file FILE [--instruct]</code>; each conversation then appears as a session.
        </li>
        {steerable.length ? (
          <li>
            To instruct {steerable.map((v) => VENDOR_NAMES[v]).join(', ')}, turn on <strong>Steering</strong> in the header, open a session and write in its
            composer. Turning the switch off stops delivery at once.
          </li>
        ) : (
          <li>Steering was not opted in for any agent; run setup again from Settings to change that.</li>
        )}
        {vendors.map((v) => {
          const a = applied[v];
          const o = a?.state === 'ok' ? a.value.options : null;
          const command = `${cli} uninstall --vendor ${v}${o?.scope === 'project' && o.project ? ` --scope project --project ${quoted(o.project)}` : ''}`;
          return (
            <li key={v} data-testid="undo" data-vendor={v}>
              To remove the {VENDOR_NAMES[v]} hooks again, run{' '}
              <span className="wz-command">
                <code>{command}</code>
                <CopyButton text={command} />
              </span>
              : it removes exactly the entries written here.
            </li>
          );
        })}
      </ul>
      <CommandLineOffer line={line} onChange={setLine} />
      <StepFooter>
        <a className="btn btn-primary" href="#/sessions" data-testid="wizard-open-console">
          Open the console
        </a>
      </StepFooter>
    </>
  );
}
