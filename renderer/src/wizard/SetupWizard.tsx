/**
 * The setup wizard (#/setup): welcome → detected agents → choose → what is kept (capture level) →
 * steering opt-ins → preview the exact diffs → apply → verify (doctor, then a live check for the
 * first hook) → done. Every file change goes through the daemon's installer API, which backs up,
 * writes and audits; the capture level is saved with Apply.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import type { Capture } from '../../../common/aep/envelope';
import type { DoctorFinding, InstallPlan, VendorDetection } from '../../../common/api';
import type { Settings } from '../../../common/settings';
import type { VendorId } from '../../../common/vendors';
import { useConsole } from '../shell/console-context';
import { ApplyStep } from './ApplyStep';
import { RECOMMENDED_CAPTURE } from './capture-levels';
import { CaptureStep } from './CaptureStep';
import { ChooseStep } from './ChooseStep';
import { DetectStep } from './DetectStep';
import { DoneStep } from './DoneStep';
import { fromResult, IDLE, LOADING, type Load, type PerVendor } from './load-state';
import { PreviewStep } from './PreviewStep';
import { SteeringStep } from './SteeringStep';
import { StepRail } from './StepRail';
import { VerifyStep } from './VerifyStep';
import { WelcomeStep } from './WelcomeStep';
import { chosenVendors, initialChoices, installOptions, STEPS, type StepId, type WizardChoices } from './wizard-model';
import './wizard.css';

/** The wizard. */
export function SetupWizard() {
  const { api } = useConsole();
  const [step, setStep] = useState<StepId>('welcome');
  const [detections, setDetections] = useState<Load<readonly VendorDetection[]>>(IDLE);
  const [choices, setChoices] = useState<WizardChoices | null>(null);
  const [plans, setPlans] = useState<PerVendor<InstallPlan>>({});
  const [applied, setApplied] = useState<PerVendor<InstallPlan>>({});
  const [findings, setFindings] = useState<PerVendor<readonly DoctorFinding[]>>({});
  const [settings, setSettings] = useState<Load<Settings>>(IDLE);
  // The capture level to save with Apply: the recommended one on a first setup, else the current setting.
  const [capture, setCapture] = useState<Capture | null>(null);
  const [captureError, setCaptureError] = useState<string | null>(null);
  // Plans answered for an earlier set of choices (Back, change, Next) must not land in the new preview.
  const previewRun = useRef(0);

  const detect = useCallback(async () => {
    setDetections(LOADING);
    const r = await api('GET /api/installer/detect', undefined);
    setDetections(fromResult(r));
    if (r.ok) setChoices((prev) => prev ?? initialChoices(r.value));
  }, [api]);

  useEffect(() => {
    void detect();
    void api('GET /api/settings', undefined).then((r) => {
      setSettings(fromResult(r));
      // A first setup starts at the recommended level; a rerun keeps the level chosen before.
      if (r.ok) setCapture((prev) => prev ?? (r.value['setup.completedAt'] ? r.value['capture.ceiling'] : RECOMMENDED_CAPTURE));
    });
  }, [api, detect]);

  const go = (next: StepId) => {
    setStep(next);
    // Each step starts at the top and takes focus, so keyboard and screen-reader users land in it.
    requestAnimationFrame(() => {
      document.getElementById('main')?.scrollTo({ top: 0 });
      document.getElementById('wizard-step')?.focus({ preventScroll: true });
    });
  };
  const index = STEPS.indexOf(step);
  const back = index > 0 && step !== 'apply' && step !== 'verify' && step !== 'done' ? () => go(STEPS[index - 1]) : null;

  const preview = async (c: WizardChoices) => {
    go('preview');
    const run = ++previewRun.current;
    const vendors = chosenVendors(c);
    setPlans(Object.fromEntries(vendors.map((v) => [v, LOADING])));
    await Promise.all(
      vendors.map(async (v) => {
        const r = await api('POST /api/installer/plan', installOptions(c, v));
        if (run === previewRun.current) setPlans((prev) => ({ ...prev, [v]: fromResult(r) }));
      }),
    );
  };

  const apply = async (c: WizardChoices, vendors: readonly VendorId[]) => {
    go('apply');
    setApplied(Object.fromEntries(vendors.map((v) => [v, IDLE])));
    const level = capture ?? RECOMMENDED_CAPTURE;
    if (settings.state !== 'ok' || settings.value['capture.ceiling'] !== level) {
      const saved = await api('PATCH /api/settings', { 'capture.ceiling': level });
      if (saved.ok) setSettings(fromResult(saved));
      setCaptureError(saved.ok ? null : saved.error.message);
    }
    // One at a time: vendors can share a file (the hook launcher), and each write is audited in order.
    for (const v of vendors) {
      setApplied((prev) => ({ ...prev, [v]: LOADING }));
      const r = await api('POST /api/installer/apply', installOptions(c, v));
      setApplied((prev) => ({ ...prev, [v]: fromResult(r) }));
    }
  };

  const verify = async (vendors: readonly VendorId[]) => {
    go('verify');
    setFindings(Object.fromEntries(vendors.map((v) => [v, LOADING])));
    for (const v of vendors) {
      const r = await api('POST /api/installer/doctor', { vendor: v });
      setFindings((prev) => ({ ...prev, [v]: fromResult(r) }));
    }
  };

  const finish = async () => {
    setSettings(LOADING);
    const r = await api('PATCH /api/settings', { 'setup.completedAt': new Date().toISOString() });
    setSettings(fromResult(r));
    if (r.ok) go('done');
  };

  const skip = async () => {
    // Skipping is recorded as skipped (not finished): the wizard stops opening on its own, and
    // Settings still says setup has not been finished.
    if (settings.state === 'ok' && (settings.value['setup.completedAt'] || settings.value['setup.skippedAt'])) {
      window.location.hash = '#/sessions';
      return;
    }
    setSettings(LOADING);
    const r = await api('PATCH /api/settings', { 'setup.skippedAt': new Date().toISOString() });
    setSettings(fromResult(r));
    if (r.ok) window.location.hash = '#/sessions';
  };

  const appliedVendors = (Object.keys(applied) as VendorId[]).filter((v) => applied[v]?.state === 'ok');

  return (
    <div className="view view-narrow wizard" data-testid="wizard">
      <div className="view-head">
        <div>
          <h1 className="view-title">Set up your agents</h1>
          <p className="view-sub">Install the companion’s hooks so it can watch your agent sessions, and steer the ones you choose.</p>
        </div>
      </div>
      <StepRail current={step} />
      <section id="wizard-step" className="card wz-card" data-testid="wizard-step" data-step={step} tabIndex={-1} aria-live="polite">
        {step === 'welcome' ? (
          <WelcomeStep settings={settings} onStart={() => go('detect')} onSkip={() => void skip()} />
        ) : step === 'detect' ? (
          <DetectStep detections={detections} onRefresh={detect} onBack={back} onNext={() => go('choose')} />
        ) : step === 'choose' && choices ? (
          <ChooseStep choices={choices} detections={detections.state === 'ok' ? detections.value : []} onChange={setChoices} onBack={back} onNext={() => go('capture')} />
        ) : step === 'capture' ? (
          <CaptureStep value={capture ?? RECOMMENDED_CAPTURE} current={settings.state === 'ok' ? settings.value['capture.ceiling'] : null} onChange={setCapture} onBack={back} onNext={() => go('steering')} />
        ) : step === 'steering' && choices ? (
          <SteeringStep choices={choices} onChange={setChoices} onBack={back} onNext={() => void preview(choices)} />
        ) : step === 'preview' && choices ? (
          <PreviewStep plans={plans} onBack={back} onApply={(vendors) => void apply(choices, vendors)} />
        ) : step === 'apply' ? (
          <ApplyStep applied={applied} captureError={captureError} onNext={() => void verify(appliedVendors)} onBackToPreview={() => choices && void preview(choices)} />
        ) : step === 'verify' ? (
          <VerifyStep findings={findings} vendors={appliedVendors} saving={settings.state === 'loading'} saveError={settings.state === 'error' ? settings.error : null} onRerun={() => void verify(appliedVendors)} onFinish={() => void finish()} />
        ) : step === 'done' ? (
          <DoneStep settings={settings} vendors={appliedVendors} applied={applied} />
        ) : (
          <p className="muted">Loading…</p>
        )}
      </section>
    </div>
  );
}
