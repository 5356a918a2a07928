/**
 * Settings → Mid-turn steering: the kill switch as it stands (above: off means no steer and no
 * instruct, whatever the toggle says), then the `features.midTurnSteering` switch. It shows the
 * daemon's answer only (GET/PUT /api/mid-turn-steering, audited there), applies at once without a
 * restart, and is locked with the reason while the host's environment forces it
 * (AEP_COMPANION_MID_TURN_STEERING).
 */
import { useEffect, useState } from 'react';
import type { MidTurnSteeringState } from '../../../../common/agent-inputs';
import { useConsole, useStoreAreas } from '../../shell/console-context';

/** The words for the switch's state and why it can or cannot change, from the daemon's state. */
export function midTurnWords(state: MidTurnSteeringState, steering: boolean | null): { inForce: string; lock: string | null } {
  const killed = steering === false;
  const lock =
    state.override !== null
      ? `Locked: the host forces it ${state.override ? 'on' : 'off'} (AEP_COMPANION_MID_TURN_STEERING in the daemon's environment). Change that and restart the daemon to change it here.`
      : null;
  const inForce = killed
    ? 'Not in force: steering is off (kill switch), so no message reaches a running turn and no instruction is delivered.'
    : state.enabled
      ? 'In force: Send now hands a message to a working launched session at once when its agent negotiated it (the agent decides whether it joins the running turn or runs next); others queue for the next turn.'
      : 'Not in force: a message sent while a session works waits for its next turn (queue only).';
  return { inForce, lock };
}

/** The section. */
export function MidTurnSection() {
  const { store } = useConsole();
  useStoreAreas('sessions', 'status');
  const [pending, setPending] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  useEffect(() => {
    void store.refreshLaunched();
  }, [store]);

  const state = store.midTurn;
  const steering = store.steeringEnabled ?? state?.steering ?? null;
  if (!state) {
    return (
      <section className="card settings-group" aria-labelledby="s-midturn" data-testid="midturn-section">
        <h2 id="s-midturn" className="section-title">Mid-turn steering</h2>
        <p className="small muted setting">Not available: this daemon runs no launched sessions.</p>
      </section>
    );
  }
  const { inForce, lock } = midTurnWords(state, steering);
  const killed = steering === false;
  const value = state.override ?? state.setting;
  const flip = async (next: boolean) => {
    setPending(next);
    setError(null);
    const failure = await store.setMidTurn(next);
    setPending(null);
    if (failure) setError(`Mid-turn steering: ${failure}`);
    else setSaved(`Mid-turn steering turned ${next ? 'on' : 'off'}.`);
  };

  return (
    <section className="card settings-group" aria-labelledby="s-midturn" id="mid-turn-steering" data-testid="midturn-section">
      <h2 id="s-midturn" className="section-title">Mid-turn steering</h2>
      <div className="setting">
        <div className="setting-text">
          <div className="setting-label">Steering (kill switch)</div>
          <div className="setting-help small muted">The switch in the header. Off stops all steering at once: mid-turn messages and hook instructions alike.</div>
        </div>
        <div className="setting-control small" data-testid="midturn-killswitch" data-state={steering === null ? 'unknown' : steering ? 'on' : 'off'}>
          {steering === null ? 'Unknown' : steering ? 'On' : 'Off'}
        </div>
      </div>
      <div className="setting">
        <div className="setting-text">
          <label className="setting-label" htmlFor="midturn-toggle">
            Send now while a session works
          </label>
          <div id="midturn-help" className="setting-help small muted">
            <span data-testid="midturn-in-force" data-enabled={state.enabled ? 'true' : 'false'}>{inForce}</span>
            {lock ? (
              <>
                {' '}
                <strong data-testid="midturn-locked">{lock}</strong>
              </>
            ) : killed ? (
              <>
                {' '}
                <strong data-testid="midturn-killed">Turn steering on in the header first; this setting applies once it is on.</strong>
              </>
            ) : null}
          </div>
        </div>
        <div className="setting-control">
          <input
            id="midturn-toggle"
            type="checkbox"
            role="switch"
            className="toggle"
            data-testid="midturn-toggle"
            data-locked={lock ? 'true' : undefined}
            checked={pending ?? value}
            disabled={lock !== null || killed || pending !== null}
            aria-describedby="midturn-help"
            onChange={(e) => void flip(e.target.checked)}
          />
        </div>
      </div>
      <div className="live-region" role="status" aria-live="polite">
        {saved ? <p className="small notice">{saved}</p> : null}
        {error ? <p className="error-text">{error}</p> : null}
      </div>
    </section>
  );
}
