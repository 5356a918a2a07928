/** Step 4: per agent, opt in to steering and to the permission loop, explained plainly. */
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { exampleMoments } from '../model/session-rows';
import { useConsole, useStoreAreas } from '../shell/console-context';
import { StepFooter } from './StepFooter';
import { chosenVendors, updateVendor, type WizardChoices } from './wizard-model';

function KillSwitchState() {
  const { store } = useConsole();
  useStoreAreas('status');
  const on = store.steeringEnabled;
  if (on === null) return <span className="muted">checking…</span>;
  return on ? <strong data-testid="wizard-killswitch" data-state="on">on</strong> : <strong data-testid="wizard-killswitch" data-state="off">off</strong>;
}

/** The steering step. */
export function SteeringStep({ choices, onChange, onBack, onNext }: { choices: WizardChoices; onChange: (c: WizardChoices) => void; onBack: (() => void) | null; onNext: () => void }) {
  const { store } = useConsole();
  useStoreAreas('sessions');
  const vendors = chosenVendors(choices);
  const profile = (v: VendorId) => store.vendors.find((p) => p.id === v);
  return (
    <>
      <h2 className="wz-title">Steering: may you instruct these agents?</h2>
      <div className="wz-explain">
        <p>
          <strong>What steering does.</strong> When you send an instruction to a running session, the companion holds it and adds it to the agent’s context in
          its reply to the agent’s next hook, for example just before or after a tool call. The agent reads it as extra context and carries on; nothing is
          typed into its terminal and no turn is interrupted. Every instruction and what became of it (accepted, delivered, dropped) is recorded.
        </p>
        <p>
          <strong>It stays off until you turn it on.</strong> Opting in here only lets an agent receive instructions. Nothing is sent to any agent until you turn
          on the <em>Steering</em> switch in the header, and turning it off stops it at once. The switch is <KillSwitchState /> now.
        </p>
        <p>
          <strong>Permission prompts</strong> work the same way: opt in, and when the agent asks to run a tool, the question also appears in the companion’s
          inbox so you can allow or deny it from here. If you do not answer in time, the agent falls back to asking you itself.
        </p>
      </div>
      <ul className="wz-list" aria-label="Steering opt-ins">
        {vendors.map((v) => {
          const c = choices.vendors[v];
          const p = profile(v);
          const moments = p?.deliveryMoments ?? [];
          const canPermit = (p?.permissionMoments.length ?? 0) > 0;
          return (
            <li key={v} className="wz-row" data-testid="steering-row" data-vendor={v}>
              <div className="wz-row-main">
                <strong>{VENDOR_NAMES[v]}</strong>
                <label className="wz-check">
                  <input type="checkbox" className="toggle" checked={c.instruct} disabled={p !== undefined && moments.length === 0} onChange={(e) => onChange(updateVendor(choices, v, { instruct: e.target.checked }))} data-testid={`instruct-${v}`} />
                  <span>
                    Let me steer {VENDOR_NAMES[v]}
                    <span className="small muted wz-check-help">
                      {moments.length
                        ? `Delivered at its next eligible hook (e.g. ${exampleMoments(moments).join(', ')})${p?.contextCap ? `, up to ${p.contextCap.toLocaleString('en-US')} characters per reply` : ''}.`
                        : p
                          ? 'This agent reads no hook reply that can carry an instruction.'
                          : ''}
                    </span>
                  </span>
                </label>
                <label className="wz-check">
                  <input type="checkbox" className="toggle" checked={c.permissions} disabled={p !== undefined && !canPermit} onChange={(e) => onChange(updateVendor(choices, v, { permissions: e.target.checked }))} data-testid={`permissions-${v}`} />
                  <span>
                    Answer its permission prompts from the companion
                    <span className="small muted wz-check-help">{canPermit ? `At ${p!.permissionMoments.join(', ')}.` : p ? 'This agent has no permission prompt a hook can answer.' : ''}</span>
                  </span>
                </label>
              </div>
            </li>
          );
        })}
      </ul>
      <StepFooter onBack={onBack} note="You can change these later by running setup again.">
        <button type="button" className="btn btn-primary" onClick={onNext} data-testid="wizard-next">
          Preview the changes
        </button>
      </StepFooter>
    </>
  );
}
