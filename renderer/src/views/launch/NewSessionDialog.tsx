/**
 * New session: pick an agent from the catalogue (`GET /api/agents`; a missing one says how to get
 * it), a working directory (a text field: the daemon checks it exists) and a first prompt. The
 * session opens as soon as the daemon answers with its id. The last agent and the recent folders
 * are kept in the daemon's settings (`launch.*`), so the desktop window and every browser tab
 * offer the same ones.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { AgentCatalogueEntry, AgentId } from '../../../../common/agents';
import { LAUNCH_RECENT_FOLDERS } from '../../../../common/settings';
import { useConsole } from '../../shell/console-context';
import { navigate } from '../../shell/use-route';

/** The dialog (a modal <dialog>: focus trapped, Escape closes, focus returns to the opener). */
export function NewSessionDialog({ open, onClose }: { open: boolean; onClose: () => void }) {
  const { api, store } = useConsole();
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  const [agents, setAgents] = useState<readonly AgentCatalogueEntry[] | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [agent, setAgent] = useState<AgentId | null>(null);
  const [cwd, setCwd] = useState('');
  const [prompt, setPrompt] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [recent, setRecent] = useState<readonly string[]>([]);
  const [lastAgent, setLastAgent] = useState<AgentId | null>(null);
  const listId = useId();

  // What was used last: the folder fills in (when the field is still empty), the agent below.
  useEffect(() => {
    if (!open) return;
    let stop = false;
    void api('GET /api/settings', undefined).then((r) => {
      if (stop || !r.ok) return;
      setRecent(r.value['launch.recentFolders']);
      setLastAgent(r.value['launch.lastAgent']);
      setCwd((c) => (c === '' ? (r.value['launch.recentFolders'][0] ?? '') : c));
    });
    return () => {
      stop = true;
    };
  }, [open, api]);

  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (open && !d.open) d.showModal();
    if (!open && d.open) d.close();
  }, [open]);

  useEffect(() => {
    if (!open) return;
    let stop = false;
    const load = async () => {
      const r = await api('GET /api/agents', undefined);
      if (stop) return;
      if (r.ok) {
        setAgents(r.value);
        setLoadError(null);
      } else setLoadError(r.error.message);
    };
    void load();
    // A bridge being fetched reports progress through the catalogue.
    const timer = setInterval(() => void load(), 2_000);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [open, api]);

  // Until the operator picks one: the agent started last when it is installed, else the first installed.
  const picked = useRef(false);
  useEffect(() => {
    if (picked.current || !agents) return;
    const preferred = agents.find((x) => x.installed && x.id === lastAgent) ?? agents.find((x) => x.installed);
    setAgent(preferred?.id ?? null);
  }, [agents, lastAgent]);

  const chosen = agents?.find((a) => a.id === agent) ?? null;
  const canLaunch = !!chosen?.installed && cwd.trim().length > 0 && !busy;

  const launch = async () => {
    if (!chosen || !canLaunch) return;
    setBusy(true);
    setError(null);
    const r = await api('POST /api/launch', { agent: chosen.id, cwd: cwd.trim(), ...(prompt.trim() ? { prompt: prompt.trim() } : {}) });
    setBusy(false);
    if (!r.ok) {
      setError(r.error.message);
      return;
    }
    const folder = cwd.trim();
    // Remembered for next time; a failure to save is no failure of the launch.
    void api('PATCH /api/settings', {
      'launch.lastAgent': chosen.id,
      'launch.recentFolders': [folder, ...recent.filter((f) => f !== folder)].slice(0, LAUNCH_RECENT_FOLDERS),
    });
    void store.refreshLaunched();
    void store.refreshSessions();
    onClose();
    navigate({ name: 'session', id: r.value.session });
  };

  return (
    <dialog
      ref={ref}
      className="dialog dialog-wide"
      aria-labelledby={titleId}
      data-testid="new-session-dialog"
      onCancel={(e) => {
        e.preventDefault();
        onClose();
      }}
    >
      <h2 id={titleId} className="dialog-title">
        New session
      </h2>
      <form
        className="dialog-body stack"
        onSubmit={(e) => {
          e.preventDefault();
          void launch();
        }}
      >
        <fieldset className="agent-picker">
          <legend className="field-label">Agent</legend>
          {loadError ? <p className="small composer-blocked">Could not list the agents: {loadError}</p> : null}
          {agents === null && !loadError ? <p className="small muted">Looking for installed agents…</p> : null}
          {agents?.map((a) => (
            <label key={a.id} className={`agent-option${a.installed ? '' : ' agent-missing'}`} data-testid="agent-option" data-agent={a.id}>
              <input type="radio" name="agent" value={a.id} checked={agent === a.id} disabled={!a.installed} onChange={() => {
                  picked.current = true;
                  setAgent(a.id);
                }} />
              <span className="agent-name">{a.name}</span>
              {a.installed ? (
                <span className="small muted mono" title={a.command?.join(' ')}>
                  {a.overridden ? 'command from settings' : (a.cliPath ?? a.command?.[0] ?? '')}
                  {a.bridge && a.bridge.state !== 'ready' ? ` · bridge ${a.bridge.package}@${a.bridge.version} ${a.bridge.state === 'absent' ? 'fetched at first launch' : a.bridge.state}` : ''}
                </span>
              ) : (
                <span className="small">
                  Not installed. To get it: <code>{a.howToGet}</code>
                </span>
              )}
              {a.bridge?.state === 'fetching' && a.bridge.log.length ? <span className="small muted mono bridge-log">{a.bridge.log[a.bridge.log.length - 1]}</span> : null}
              {a.bridge?.state === 'failed' && a.bridge.error ? <span className="small composer-blocked">{a.bridge.error}</span> : null}
            </label>
          ))}
        </fieldset>
        <label className="field">
          <span className="field-label">Working directory</span>
          <input className="input mono" value={cwd} onChange={(e) => setCwd(e.target.value)} placeholder="/home/you/projects/app" data-testid="launch-cwd" list={listId} required />
          <datalist id={listId}>
            {recent.map((f) => (
              <option key={f} value={f} />
            ))}
          </datalist>
          <span className="small muted">An existing folder on the machine the daemon runs on; the agent works there.</span>
        </label>
        {recent.length > 1 ? (
          <div className="recent-folders small" role="group" aria-label="Recent folders" data-testid="recent-folders">
            <span className="muted">Recent:</span>
            {recent.map((f) => (
              <button key={f} type="button" className="btn btn-small mono" aria-pressed={cwd.trim() === f} onClick={() => setCwd(f)} data-testid="recent-folder">
                {f}
              </button>
            ))}
          </div>
        ) : null}
        <label className="field">
          <span className="field-label">First prompt (optional)</span>
          <textarea className="input" rows={4} value={prompt} onChange={(e) => setPrompt(e.target.value)} data-testid="launch-prompt" />
        </label>
        {error ? (
          <p className="small composer-blocked" role="alert" data-testid="launch-error">
            {error}
          </p>
        ) : null}
        <div className="dialog-actions">
          <button type="button" className="btn" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="btn btn-primary" disabled={!canLaunch} data-testid="launch-start">
            {busy ? 'Starting…' : 'Start session'}
          </button>
        </div>
      </form>
    </dialog>
  );
}
