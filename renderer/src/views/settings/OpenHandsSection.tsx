/**
 * Settings → OpenHands: the agent-server connection as the daemon reports it (GET /api/openhands),
 * and the form that connects (URL, session API key, the control opt-in) or disconnects. The key is
 * sent once to the daemon, which keeps it in a 0600 file; it is never shown again.
 */
import { useEffect, useState } from 'react';
import type { OpenHandsState } from '../../../../common/openhands';
import { useConsole } from '../../shell/console-context';

const STATE_WORDS: Record<OpenHandsState['state'], string> = {
  disconnected: 'Not connected',
  connecting: 'Connecting…',
  connected: 'Connected',
  unreachable: 'Unreachable (retrying)',
  unauthorized: 'Key refused',
  unsupported: 'Unsupported version',
};

export function OpenHandsSection() {
  const { api } = useConsole();
  const [state, setState] = useState<OpenHandsState | null>(null);
  const [url, setUrl] = useState('');
  const [key, setKey] = useState('');
  const [instruct, setInstruct] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    const load = () => void api('GET /api/openhands', undefined).then((r) => (r.ok ? setState(r.value) : null));
    load();
    const timer = setInterval(load, 4_000);
    return () => clearInterval(timer);
  }, [api]);
  const connect = async () => {
    setBusy(true);
    setError(null);
    const r = await api('POST /api/openhands/connect', { url: url.trim(), key: key.trim(), instruct });
    setBusy(false);
    if (!r.ok) return setError(r.error.message);
    setKey('');
    setState(r.value);
  };
  const disconnect = async () => {
    const r = await api('POST /api/openhands/disconnect', undefined);
    if (r.ok) setState(r.value);
    else setError(r.error.message);
  };
  return (
    <section className="card settings-group" aria-labelledby="s-openhands" id="openhands" data-testid="openhands-section">
      <h2 id="s-openhands" className="section-title">OpenHands</h2>
      <div className="setting">
        <div className="setting-text">
          <div className="setting-label">Agent server</div>
          <div className="setting-help small muted" data-testid="openhands-state" data-state={state?.state ?? 'unknown'}>
            {state === null
              ? 'Unknown'
              : state.url === null
                ? 'Not connected. Each conversation of a connected agent server appears as a session.'
                : `${STATE_WORDS[state.state]}: ${state.url}${state.version ? ` (agent server ${state.version})` : ''}; ${state.conversations} conversation(s); control ${state.instruct ? 'opted in' : 'off'}.${state.reason ? ` ${state.reason}` : ''}`}
          </div>
        </div>
        {state?.url ? (
          <button type="button" className="btn" onClick={() => void disconnect()} data-testid="openhands-disconnect">
            Disconnect
          </button>
        ) : null}
      </div>
      <form className="stack" onSubmit={(e) => (e.preventDefault(), void connect())} aria-label="Connect an OpenHands agent server">
        <label className="setting-label" htmlFor="oh-url">Server URL</label>
        <input id="oh-url" className="input" placeholder="http://127.0.0.1:8000" value={url} onChange={(e) => setUrl(e.target.value)} data-testid="openhands-url" />
        <label className="setting-label" htmlFor="oh-key">Session API key</label>
        <input id="oh-key" className="input" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} data-testid="openhands-key" />
        <label className="small">
          <input type="checkbox" checked={instruct} onChange={(e) => setInstruct(e.target.checked)} data-testid="openhands-instruct" /> Allow control (messages, cancel,
          confirmations) while Steering is on
        </label>
        {error ? <p className="error-text">{error}</p> : null}
        <div>
          <button type="submit" className="btn btn-primary" disabled={busy || url.trim() === '' || key.trim() === ''} data-testid="openhands-connect">
            Connect
          </button>
        </div>
      </form>
    </section>
  );
}
