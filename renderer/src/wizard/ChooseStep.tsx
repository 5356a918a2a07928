/** Step 3: which agents to connect, and where: your user settings, or one project's settings. */
import type { VendorDetection } from '../../../common/api';
import { VENDOR_NAMES, VENDORS, type VendorId } from '../../../common/vendors';
import { StepFooter } from './StepFooter';
import { chosenVendors, HTTP_VENDORS, scopeProblem, updateVendor, type WizardChoices } from './wizard-model';

function hint(d: VendorDetection | undefined): string {
  if (!d) return '';
  if (d.installed) return 'hooks already installed: this updates them';
  if (d.cliPath) return `found${d.cliVersion ? ` (${d.cliVersion})` : ''}`;
  if (d.configExists) return 'config file found';
  return 'not found on this machine';
}

function TransportChoice({ vendor, choices, onChange }: { vendor: VendorId; choices: WizardChoices; onChange: (c: WizardChoices) => void }) {
  const value = choices.vendors[vendor].transport ?? 'command';
  return (
    <label className="wz-inline small">
      <span className="muted">Hooks reach the companion by</span>
      <select className="input wz-select" value={value} onChange={(e) => onChange(updateVendor(choices, vendor, { transport: e.target.value === 'http' ? 'http' : null }))} aria-label={`How ${VENDOR_NAMES[vendor]} hooks reach the companion`} data-testid={`transport-${vendor}`}>
        <option value="command">the launcher (recommended: works from any shell, on any port)</option>
        <option value="http">HTTP hooks (every shell must export AEP_HOOK_TOKEN; reinstall when the port changes)</option>
      </select>
    </label>
  );
}

/** The choose step. */
export function ChooseStep({ choices, detections, onChange, onBack, onNext }: { choices: WizardChoices; detections: readonly VendorDetection[]; onChange: (c: WizardChoices) => void; onBack: (() => void) | null; onNext: () => void }) {
  const chosen = chosenVendors(choices);
  const problem = scopeProblem(choices);
  return (
    <>
      <h2 className="wz-title">Choose agents and where to install</h2>
      <fieldset className="wz-fieldset">
        <legend className="section-title">Agents</legend>
        <ul className="wz-list">
          {VENDORS.map((v) => {
            const c = choices.vendors[v];
            return (
              <li key={v} className={`wz-row wz-row-check${c.selected ? ' wz-row-on' : ''}`}>
                <label className="wz-check">
                  <input type="checkbox" className="toggle" checked={c.selected} onChange={(e) => onChange(updateVendor(choices, v, { selected: e.target.checked }))} data-testid={`choose-${v}`} />
                  <span>
                    <strong>{VENDOR_NAMES[v]}</strong> <span className="small muted">{hint(detections.find((d) => d.vendor === v))}</span>
                  </span>
                </label>
                {c.selected && HTTP_VENDORS.includes(v) ? <TransportChoice vendor={v} choices={choices} onChange={onChange} /> : null}
              </li>
            );
          })}
        </ul>
      </fieldset>
      <fieldset className="wz-fieldset">
        <legend className="section-title">Where</legend>
        <div className="wz-scope" role="radiogroup" aria-label="Install scope">
          <label className={`wz-scope-option${choices.scope === 'user' ? ' wz-scope-on' : ''}`}>
            <input type="radio" name="scope" checked={choices.scope === 'user'} onChange={() => onChange({ ...choices, scope: 'user' })} />
            <span>
              <strong>For all my projects</strong>
              <span className="small muted">Your user settings (e.g. ~/.claude/settings.json): every session you start is watched.</span>
            </span>
          </label>
          <label className={`wz-scope-option${choices.scope === 'project' ? ' wz-scope-on' : ''}`}>
            <input type="radio" name="scope" checked={choices.scope === 'project'} onChange={() => onChange({ ...choices, scope: 'project' })} />
            <span>
              <strong>One project only</strong>
              <span className="small muted">The project’s own settings (e.g. .claude/settings.local.json, kept out of git): only sessions started there are watched.</span>
            </span>
          </label>
        </div>
        {choices.scope === 'project' ? (
          <label className="wz-project">
            <span className="field-label">Project directory</span>
            <input className="input mono" value={choices.project} placeholder="/home/you/projects/app" onChange={(e) => onChange({ ...choices, project: e.target.value })} data-testid="project-dir" spellCheck={false} />
            {problem ? <span className="small muted">{problem}</span> : null}
          </label>
        ) : null}
      </fieldset>
      <StepFooter onBack={onBack} note={chosen.length ? `${chosen.length} selected` : 'Choose at least one agent.'}>
        <button type="button" className="btn btn-primary" onClick={onNext} disabled={chosen.length === 0 || problem !== null} data-testid="wizard-next">
          Next: what is kept
        </button>
      </StepFooter>
    </>
  );
}
