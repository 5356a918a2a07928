/**
 * Installed HTTP hooks that post to another port than the daemon listens on never arrive: this
 * says which, and reinstalls them for the running daemon in one click (`POST /api/installer/repair`).
 * The status bar shows the same `StatusInfo.hookPortMismatch`.
 */
import { useState } from 'react';
import type { HookPortMismatch } from '../../../../common/api';
import { VENDOR_NAMES } from '../../../../common/vendors';
import { useConsole, useStoreAreas } from '../../shell/console-context';

function where(m: HookPortMismatch): string {
  return m.scope === 'project' ? `project ${m.project}` : 'your user settings';
}

/** The notice; renders nothing while every installed hook reaches the daemon. */
export function HookPortNotice() {
  const { api, store } = useConsole();
  useStoreAreas('status');
  const [state, setState] = useState<{ kind: 'idle' | 'working' } | { kind: 'done' | 'failed'; text: string }>({ kind: 'idle' });
  const mismatches = store.status?.hookPortMismatch ?? [];
  if (mismatches.length === 0 && state.kind !== 'done') return null;
  const repair = async () => {
    setState({ kind: 'working' });
    const r = await api('POST /api/installer/repair', undefined);
    await store.refreshStatus();
    if (!r.ok) return setState({ kind: 'failed', text: r.error.message });
    if (r.value.failed.length > 0)
      return setState({ kind: 'failed', text: r.value.failed.map((f) => `${VENDOR_NAMES[f.vendor]}: ${f.error}`).join(' ') });
    setState({ kind: 'done', text: `Reinstalled for ${r.value.reinstalled.map((p) => VENDOR_NAMES[p.options.vendor]).join(', ')}: new hooks reach the daemon at its current port.` });
  };
  return (
    <div className="wz-alert wz-alert-warn" role="alert" data-testid="hook-port-notice">
      {mismatches.length > 0 ? (
        <>
          <strong>Some hooks do not reach the companion.</strong>
          <ul className="small">
            {mismatches.map((m) => (
              <li key={`${m.vendor}-${m.file}`} data-testid="hook-port-mismatch" data-vendor={m.vendor}>
                {VENDOR_NAMES[m.vendor]} ({where(m)}) posts to {m.hookUrl}, but the daemon listens on {m.daemonUrl}.
              </li>
            ))}
          </ul>
          <button type="button" className="btn btn-primary" onClick={() => void repair()} disabled={state.kind === 'working'} data-testid="hook-port-repair">
            {state.kind === 'working' ? 'Reinstalling…' : 'Reinstall for this daemon'}
          </button>
        </>
      ) : null}
      {state.kind === 'done' || state.kind === 'failed' ? (
        <p className={state.kind === 'failed' ? 'error-text small' : 'small'} role="status">
          {state.text}
        </p>
      ) : null}
    </div>
  );
}
