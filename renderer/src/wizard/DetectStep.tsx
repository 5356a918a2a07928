/** Step 2: what the daemon found on this machine, per agent: config file, CLI and version, our hooks. */
import type { VendorDetection } from '../../../common/api';
import { VENDOR_NAMES } from '../../../common/vendors';
import { Badge } from '../ui/Badge';
import { commandPrefix, useCommandLine } from './CommandLineOffer';
import type { Load } from './load-state';
import { StepFooter } from './StepFooter';
import { Ticked } from './Ticked';

function Installed({ d }: { d: VendorDetection }) {
  // This is about the companion's hooks; whether the agent itself is there is the CLI line below.
  if (!d.installed) return <Badge tone="muted">hooks not installed</Badge>;
  return (
    <Badge tone="ok" dot>
      hooks installed{d.installed.instruct ? ' · steering opt-in' : ''}
      {d.installed.permissions ? ' · permission prompts' : ''}
    </Badge>
  );
}

/** The detection step. */
export function DetectStep({ detections, onRefresh, onBack, onNext }: { detections: Load<readonly VendorDetection[]>; onRefresh: () => void; onBack: (() => void) | null; onNext: () => void }) {
  const [line] = useCommandLine();
  const cli = commandPrefix(line.state === 'ok' ? line.value : null);
  return (
    <>
      <h2 className="wz-title">Your agents</h2>
      <p className="wz-lead">What the companion found in your home directory and on your PATH. An agent does not need to be found to be set up: its config file is created if it is missing.</p>
      {detections.state === 'loading' || detections.state === 'idle' ? <p className="muted loading">Looking for agents…</p> : null}
      {detections.state === 'error' ? (
        <div className="wz-alert wz-alert-bad" role="alert" data-testid="detect-error">
          <strong>The daemon could not look for agents.</strong> {detections.error}
          <span className="wz-alert-hint small">
            Nothing was changed. You can still install from a terminal, which shows the same preview first: <code>{cli} install --vendor claude-code --instruct --dry-run</code>.
          </span>
        </div>
      ) : null}
      {detections.state === 'ok' ? (
        <ul className="wz-list" aria-label="Detected agents">
          {detections.value.map((d) => (
            <li key={d.vendor} className="wz-row" data-testid="detect-row" data-vendor={d.vendor} data-cli={d.cliPath ? 'found' : 'missing'} data-installed={d.installed ? 'yes' : 'no'}>
              <div className="wz-row-main">
                <div className="wz-row-title">
                  <strong>{VENDOR_NAMES[d.vendor]}</strong>
                  <Installed d={d} />
                </div>
                <div className="wz-facts small">
                  <span className="wz-fact">
                    <span className="muted">Config</span> <span className="mono">{d.configPath}</span>{' '}
                    <span className="muted">{d.configExists ? '' : '(not there yet: would be created)'}</span>
                  </span>
                  <span className="wz-fact">
                    <span className="muted">CLI</span>{' '}
                    {d.cliPath ? (
                      <>
                        <span className="mono">{d.cliPath}</span>
                        {d.cliVersion ? <span> · version {d.cliVersion}</span> : <span className="muted"> · version unknown</span>}
                      </>
                    ) : (
                      <span className="muted">not found on PATH</span>
                    )}
                  </span>
                </div>
                {d.warnings.length ? (
                  <ul className="wz-warnings small">
                    {d.warnings.map((w) => (
                      <li key={w}>
              <Ticked text={w} />
            </li>
                    ))}
                  </ul>
                ) : null}
              </div>
            </li>
          ))}
        </ul>
      ) : null}
      <StepFooter onBack={onBack}>
        <button type="button" className="btn" onClick={onRefresh} disabled={detections.state === 'loading'}>
          Look again
        </button>
        <button type="button" className="btn btn-primary" onClick={onNext} disabled={detections.state !== 'ok'} data-testid="wizard-next">
          Choose agents
        </button>
      </StepFooter>
    </>
  );
}
