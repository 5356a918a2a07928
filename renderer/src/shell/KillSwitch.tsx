/**
 * The steering kill switch. It shows the daemon's confirmed state only: while a change is in
 * flight the switch says so rather than pretending it already flipped. Turning steering on asks
 * for confirmation; turning it off is one click, because stopping must never be slow.
 */
import { useState } from 'react';
import { ConfirmDialog } from '../ui/ConfirmDialog';
import { useConsole, useStoreAreas } from './console-context';

/** The header switch. */
export function KillSwitch() {
  const { store } = useConsole();
  useStoreAreas('status');
  const enabled = store.steeringEnabled;
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState<boolean | null>(null);
  const [error, setError] = useState<string | null>(null);

  const apply = async (next: boolean) => {
    setPending(next);
    setError(null);
    const failure = await store.setSteering(next);
    setPending(null);
    setConfirming(false);
    if (failure) setError(failure);
  };

  const label = enabled === null ? 'Steering state unknown' : enabled ? 'Steering on' : 'Steering off';
  return (
    <div className="killswitch">
      <button
        type="button"
        role="switch"
        aria-checked={enabled === true}
        aria-label="Steering"
        data-testid="kill-switch"
        data-state={enabled === null ? 'unknown' : enabled ? 'on' : 'off'}
        className={`switch ${enabled ? 'switch-on' : ''}`}
        disabled={enabled === null || pending !== null}
        onClick={() => (enabled ? void apply(false) : setConfirming(true))}
        title={enabled ? 'Turn steering off: refuses new instructions and drops queued ones at once' : 'Turn steering on'}
      >
        <span className="switch-track" aria-hidden="true">
          <span className="switch-thumb" />
        </span>
        <span className="switch-label">{pending === true ? 'Turning on…' : pending === false ? 'Turning off…' : label}</span>
      </button>
      {error ? (
        <span className="killswitch-error" role="alert">
          {error}
        </span>
      ) : null}
      <ConfirmDialog
        open={confirming}
        title="Turn steering on?"
        confirmLabel="Turn steering on"
        busy={pending !== null}
        onConfirm={() => void apply(true)}
        onCancel={() => setConfirming(false)}
      >
        <p>Operators will be able to send instructions to sessions whose hooks opted in to steering. Each instruction is handed to the agent in the reply to its next eligible hook.</p>
        <p>Every instruction and its outcome is recorded in the audit history. Turning steering off again refuses new instructions and drops queued ones immediately.</p>
      </ConfirmDialog>
    </div>
  );
}
