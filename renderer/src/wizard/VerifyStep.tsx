/**
 * Step 7: doctor's findings per agent (each failure with its remedy), then a live check per
 * agent that turns green only when the daemon reports a new hook from it. The baseline is taken
 * after doctor ran, so doctor's own synthetic hook never counts as the agent's.
 */
import { useEffect, useMemo, useState } from 'react';
import type { DoctorFinding } from '../../../common/api';
import { VENDOR_NAMES, type VendorId } from '../../../common/vendors';
import { useConsole, useStoreAreas } from '../shell/console-context';
import { Badge } from '../ui/Badge';
import { HookPortNotice } from '../views/settings/HookPortNotice';
import { clockTime } from '../ui/format';
import type { PerVendor } from './load-state';
import { StepFooter } from './StepFooter';
import { Ticked } from './Ticked';
import { hookArrived } from './wizard-model';

const POLL_MS = 2_000;

function FindingRow({ f }: { f: DoctorFinding }) {
  const kind = f.unchecked ? 'unchecked' : f.ok ? 'ok' : 'bad';
  return (
    <li className={`wz-finding wz-finding-${kind}`} data-testid="finding" data-ok={f.ok ? 'true' : 'false'} data-unchecked={f.unchecked ? 'true' : undefined} data-check={f.check}>
      <span className="wz-finding-icon" aria-label={{ ok: 'passed', bad: 'failed', unchecked: 'not checked' }[kind]}>
        {{ ok: '✓', bad: '!', unchecked: '?' }[kind]}
      </span>
      <span>
        <span className="wz-finding-message">
          <Ticked text={f.message} />
        </span>
        {f.remedy ? (
          <span className="wz-finding-remedy small">
            <Ticked text={f.remedy} />
          </span>
        ) : null}
      </span>
    </li>
  );
}

/** Doctor's general findings once, then each agent's own. */
function groupFindings(findings: PerVendor<readonly DoctorFinding[]>, vendors: readonly VendorId[]): { general: DoctorFinding[]; own: Map<VendorId, DoctorFinding[]> } {
  const general = new Map<string, DoctorFinding>();
  const own = new Map<VendorId, DoctorFinding[]>();
  for (const v of vendors) {
    const f = findings[v];
    if (f?.state !== 'ok') continue;
    for (const x of f.value) {
      if (x.vendor === null) general.set(x.check, x);
      else own.set(v, [...(own.get(v) ?? []), x]);
    }
  }
  return { general: [...general.values()], own };
}

/** The verify step. */
export function VerifyStep(props: { findings: PerVendor<readonly DoctorFinding[]>; vendors: readonly VendorId[]; saving: boolean; saveError: string | null; onRerun: () => void; onFinish: () => void }) {
  const { findings, vendors } = props;
  const { store } = useConsole();
  useStoreAreas('status');
  const doctorDone = vendors.every((v) => findings[v]?.state === 'ok' || findings[v]?.state === 'error');
  const [baseline, setBaseline] = useState<Partial<Record<VendorId, string>> | null>(null);
  const grouped = useMemo(() => groupFindings(findings, vendors), [findings, vendors]);
  const failures = grouped.general.filter((f) => !f.ok).length + [...grouped.own.values()].flat().filter((f) => !f.ok).length;
  const unchecked = [...grouped.general, ...[...grouped.own.values()].flat()].filter((f) => f.unchecked).length;

  useEffect(() => {
    if (!doctorDone) {
      setBaseline(null);
      return;
    }
    let live = true;
    void store.refreshStatus().then(() => {
      if (live && store.status) setBaseline({ ...store.status.lastHook });
    });
    return () => {
      live = false;
    };
  }, [doctorDone, store]);

  const lastHook = store.status?.lastHook ?? {};
  const waiting = baseline === null || vendors.some((v) => !hookArrived(baseline[v], lastHook[v]));
  useEffect(() => {
    if (baseline === null || !waiting) return;
    const timer = setInterval(() => void store.refreshStatus(), POLL_MS);
    return () => clearInterval(timer);
  }, [baseline, waiting, store]);

  return (
    <>
      <h2 className="wz-title">Check the connection</h2>
      <HookPortNotice />
      <h3 className="section-title wz-subtitle">
        Doctor
        {doctorDone ? (
          failures ? (
            <Badge tone="warn">
              {failures} {failures === 1 ? 'finding needs' : 'findings need'} attention
            </Badge>
          ) : (
            <Badge tone="ok">{unchecked ? `the other checks passed; ${unchecked} ${unchecked === 1 ? 'thing' : 'things'} doctor cannot see` : 'all checks passed'}</Badge>
          )
        ) : null}
      </h3>
      {!doctorDone ? <p className="muted">Sending a test hook through each installed entry…</p> : null}
      <ul className="wz-findings" aria-label="Doctor findings">
        {grouped.general.map((f) => (
          <FindingRow key={f.check} f={f} />
        ))}
      </ul>
      {vendors.map((v) => {
        const f = findings[v];
        return (
          <div key={v} className="wz-vendor-findings" data-testid="doctor" data-vendor={v} data-state={f?.state ?? 'idle'}>
            <h4 className="wz-vendor-name">{VENDOR_NAMES[v]}</h4>
            {f?.state === 'error' ? <p className="error-text small">Doctor could not run: {f.error}</p> : null}
            <ul className="wz-findings">
              {(grouped.own.get(v) ?? []).map((x, i) => (
                <FindingRow key={`${x.check}-${i}`} f={x} />
              ))}
            </ul>
          </div>
        );
      })}
      <h3 className="section-title wz-subtitle">Start your agent now</h3>
      <p className="small muted wz-gap">Start a new session of each agent (or send a prompt in one that is already running). The check turns green when its first hook reaches the companion.</p>
      <ul className="wz-list" aria-label="Live hook checks">
        {vendors.map((v) => {
          const arrived = baseline !== null && hookArrived(baseline[v], lastHook[v]);
          return (
            <li key={v} className={`wz-live ${arrived ? 'wz-live-ok' : ''}`} data-testid="live-check" data-vendor={v} data-state={arrived ? 'received' : 'waiting'}>
              {arrived ? (
                <span className="wz-live-icon" aria-hidden="true">
                  ✓
                </span>
              ) : (
                <span className="banner-pulse" aria-hidden="true" />
              )}
              <span>
                <strong>{VENDOR_NAMES[v]}</strong>{' '}
                {arrived ? (
                  <span>hook received at {clockTime(lastHook[v]!)}: this agent is connected.</span>
                ) : (
                  <span className="muted">
                    waiting for its first hook…
                    {(grouped.own.get(v) ?? []).some((f) => !f.ok) ? ' If nothing arrives, fix the findings above first.' : ''}
                  </span>
                )}
              </span>
              {arrived ? <Badge tone="ok">connected</Badge> : null}
            </li>
          );
        })}
      </ul>
      {props.saveError ? <p className="error-text">Could not save: {props.saveError}</p> : null}
      <StepFooter note={waiting ? 'You can finish now; sessions will appear in the console whenever they start.' : 'Every chosen agent has reached the companion.'}>
        <button type="button" className="btn" onClick={props.onRerun} disabled={!doctorDone}>
          Run doctor again
        </button>
        <button type="button" className="btn btn-primary" onClick={props.onFinish} disabled={props.saving} data-testid="wizard-finish">
          {waiting ? 'Finish without waiting' : 'Finish'}
        </button>
      </StepFooter>
    </>
  );
}
