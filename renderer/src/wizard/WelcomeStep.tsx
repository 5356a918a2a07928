/** Step 1: what the companion does, and the promise that nothing is written before a preview. */
import type { Settings } from '../../../common/settings';
import type { Load } from './load-state';
import { StepFooter } from './StepFooter';

/** The welcome step. */
export function WelcomeStep({ settings, onStart, onSkip }: { settings: Load<Settings>; onStart: () => void; onSkip: () => void }) {
  const rerun = settings.state === 'ok' && settings.value['setup.completedAt'] !== null;
  const steeringOn = settings.state === 'ok' && settings.value['features.steering'];
  return (
    <>
      <h2 className="wz-title">{rerun ? 'Run setup again' : 'Welcome to AEP Companion'}</h2>
      <p className="wz-lead">
        The companion watches your coding agents through their own hooks: Claude Code, Codex CLI, Qwen Code, the VS Code agent and Hermes. Every session
        shows up here live, with a durable history, and you can send an instruction to a running session when you choose to.
      </p>
      <ul className="wz-points">
        <li>
          <strong>You see every change first.</strong> The next steps find your agents, let you pick which ones to connect, and show the exact lines that
          would be added to each config file. Nothing is written until you press Apply.
        </li>
        <li>
          <strong>Your own settings stay as they are.</strong> The original files are backed up, only the companion’s entries are added, and uninstalling
          removes exactly those entries.
        </li>
        <li>
          <strong>Steering is opt-in, twice.</strong> You choose per agent whether it may be steered, and nothing is sent to any agent while the steering
          switch in the header is off{steeringOn ? ' (it is on now)' : ''}.
        </li>
      </ul>
      {settings.state === 'error' ? <p className="error-text">Could not read the settings: {settings.error}</p> : null}
      <StepFooter note={rerun ? 'Setup finished before; running it again only changes what you approve.' : 'Takes about two minutes.'}>
        <button type="button" className="btn" onClick={onSkip} disabled={settings.state === 'loading'} data-testid="wizard-skip">
          {rerun ? 'Close' : 'Skip for now'}
        </button>
        <button type="button" className="btn btn-primary" onClick={onStart} data-testid="wizard-next">
          Find my agents
        </button>
      </StepFooter>
    </>
  );
}
