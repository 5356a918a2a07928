/** Settings: capture, retention, steering expiry, port, tokens, theme. Each change saves at once. */
import { useEffect, useState } from 'react';
import { CAPTURES, type Capture } from '../../../../common/aep/envelope';
import type { Settings, Theme } from '../../../../common/settings';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { applyTheme } from '../../shell/theme';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { CAPTURE_LEVELS, RECOMMENDED_CAPTURE } from '../../wizard/capture-levels';
import { HookPortNotice } from './HookPortNotice';
import { RetentionRows } from './RetentionSection';
import { NumberSetting, Row } from './setting-controls';
import { MidTurnSection } from './MidTurnSection';
import { OpenHandsSection } from './OpenHandsSection';

const CAPTURE_HELP: Record<Capture, string> = {
  none: 'activity only',
  metadata: 'structure only',
  redacted: 'secrets scrubbed',
  full: 'everything, unaltered',
};
const optionLabel = (c: Capture, recommend: boolean): string => `${c}: ${CAPTURE_HELP[c]}${recommend && c === RECOMMENDED_CAPTURE ? ' (recommended)' : ''}`;

/** What Settings says about the setup wizard: finished only when it ran to its end. */
export function setupStatus(settings: Pick<Settings, 'setup.completedAt' | 'setup.skippedAt'>): string {
  const done = settings['setup.completedAt'];
  if (done) return `Finished ${new Date(done).toLocaleString()}. Run it again to add agents or change their steering opt-ins.`;
  const skipped = settings['setup.skippedAt'];
  if (skipped) return `Skipped ${new Date(skipped).toLocaleString()}, not finished: it installs the hooks of the agents you choose, showing each change first.`;
  return 'Not run yet: it installs the hooks of the agents you choose, showing each change first.';
}

/** The settings view. */
export function SettingsView() {
  const { api, adoptToken, store } = useConsole();
  const [settings, setSettings] = useState<Settings | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [rotating, setRotating] = useState<'operator' | 'hook' | null>(null);
  const [rotated, setRotated] = useState<string | null>(null);
  useStoreAreas('status');
  const runningPort = store.status ? Number(new URL(store.status.url).port) : null;
  // Only a restart-needing setting changed since the daemon started makes a restart needed.
  const portChanged = store.status?.restartNeeded?.includes('server.port') ?? false;

  useEffect(() => {
    void api('GET /api/settings', undefined).then((r) => (r.ok ? setSettings(r.value) : setError(r.error.message)));
  }, [api]);

  /** Saves a patch; resolves with null when saved, else the daemon's reason (also shown above). */
  const save = async (patch: Partial<Settings>, what: string): Promise<string | null> => {
    const r = await api('PATCH /api/settings', patch);
    if (r.ok) {
      setSettings(r.value);
      setSaved(`${what} saved.`);
      setError(null);
      if ('ui.theme' in patch) applyTheme(r.value['ui.theme']);
      if ('server.port' in patch) void store.refreshStatus();
      return null;
    }
    setSaved(null);
    setError(`${what}: ${r.error.message}`);
    return r.error.message;
  };

  const rotate = async (which: 'operator' | 'hook') => {
    const r = await api('POST /api/tokens/rotate', { which });
    setRotating(null);
    if (!r.ok) {
      setError(`Token rotation failed: ${r.error.message}`);
      return;
    }
    if (which === 'operator') {
      adoptToken(r.value.token);
      setRotated('The operator token was replaced. This window switched to the new one; other open consoles and the CLI need the new token (browser tabs: open the link `serve` prints).');
    } else {
      setRotated('The hook token was replaced. Hooks that read the token file pick it up on their next call; hooks configured with the token value need reinstalling.');
    }
  };

  if (!settings) return <div className="view"><p className="muted loading">{error ? `Could not load settings: ${error}` : 'Loading settings…'}</p></div>;

  const port = settings['server.port'];
  return (
    <div className="view view-narrow">
      <div className="view-head">
        <div>
          <h1 className="view-title">Settings</h1>
          <p className="view-sub">Changes apply immediately unless noted.</p>
        </div>
      </div>
      <div className="live-region" role="status" aria-live="polite">
        {saved ? <p className="small notice">{saved}</p> : null}
        {error ? <p className="error-text">{error}</p> : null}
      </div>

      <section className="card settings-group" aria-labelledby="s-appearance">
        <h2 id="s-appearance" className="section-title">Appearance</h2>
        <Row label="Theme" help="Follows the system unless you pick one.">
          <div className="segmented" role="radiogroup" aria-label="Theme">
            {(['system', 'light', 'dark'] as Theme[]).map((t) => (
              <button key={t} type="button" role="radio" aria-checked={settings['ui.theme'] === t} onClick={() => void save({ 'ui.theme': t }, 'Theme')}>
                {t[0].toUpperCase() + t.slice(1)}
              </button>
            ))}
          </div>
        </Row>
        <Row label="Desktop notifications" help="Notify when an agent asks for permission or input while the window is in the background (desktop app).">
          <input type="checkbox" className="toggle" checked={settings['ui.notifications']} onChange={(e) => void save({ 'ui.notifications': e.target.checked }, 'Notifications')} aria-label="Desktop notifications" />
        </Row>
      </section>

      <section className="card settings-group" aria-labelledby="s-capture">
        <h2 id="s-capture" className="section-title">Capture</h2>
        <Row label="Capture ceiling" htmlFor="capture" help={<>{CAPTURE_LEVELS.find((l) => l.level === settings['capture.ceiling'])?.shows} Applies to new events.</>}>
          <select id="capture" className="input" value={settings['capture.ceiling']} onChange={(e) => void save({ 'capture.ceiling': e.target.value as Capture }, 'Capture ceiling')}>
            {CAPTURES.map((c) => (
              <option key={c} value={c}>{optionLabel(c, true)}</option>
            ))}
          </select>
        </Row>
        <Row label="Attention capture" htmlFor="capture-attention" help="Ceiling for permission prompts and questions, so you can read what you approve.">
          <select id="capture-attention" className="input" value={settings['capture.attentionCeiling']} onChange={(e) => void save({ 'capture.attentionCeiling': e.target.value as Capture }, 'Attention capture')}>
            {CAPTURES.map((c) => (
              <option key={c} value={c}>{optionLabel(c, false)}</option>
            ))}
          </select>
        </Row>
        <Row label="Read agent transcripts" help="For sessions seen through hooks: read the transcript file the hook names (only inside the agent's own session folder, such as ~/.claude/projects) to show the agent's replies, interrupts, errors, model and token use. Applies at once.">
          <input type="checkbox" className="toggle" checked={settings['features.transcripts']} onChange={(e) => void save({ 'features.transcripts': e.target.checked }, 'Read agent transcripts')} aria-label="Read agent transcripts" />
        </Row>
      </section>

      <section className="card settings-group" aria-labelledby="s-retention" data-testid="settings-retention">
        <h2 id="s-retention" className="section-title">Retention</h2>
        <p className="small muted">What the daemon keeps on this machine. Removal runs hourly, oldest first.</p>
        <RetentionRows settings={settings} save={save} />
      </section>

      <section className="card settings-group" aria-labelledby="s-steering">
        <h2 id="s-steering" className="section-title">Steering and permissions</h2>
        <Row label="Idle expiry" htmlFor="idle" help="For agents whose session-end hook some runs skip (Qwen Code -p, Claude Code, Hermes): queued instructions are dropped, with a reason, after this much inactivity. Codex CLI and the VS Code agent have no session end: their queue is kept while the companion runs and delivered at the session's next eligible hook.">
          <NumberSetting id="idle" value={settings['steering.idleExpiryMs']} scale={60_000} unit="minutes" min={1} onSave={(v) => void save({ 'steering.idleExpiryMs': v }, 'Idle expiry')} />
        </Row>
        <Row label="Permission hold" htmlFor="hold" help="How long a permission hook waits for your answer before the agent falls back to its own prompt.">
          <NumberSetting id="hold" value={settings['permissions.holdMs']} scale={1000} unit="seconds" min={1} onSave={(v) => void save({ 'permissions.holdMs': v }, 'Permission hold')} />
        </Row>
      </section>

      <MidTurnSection />
      <OpenHandsSection />

      <section className="card settings-group" aria-labelledby="s-agents">
        <h2 id="s-agents" className="section-title">Agents</h2>
        <HookPortNotice />
        <Row label="Setup wizard" help={<span data-testid="settings-setup-status">{setupStatus(settings)}</span>}>
          <a className="btn" href="#/setup" data-testid="settings-run-setup">{settings['setup.completedAt'] ? 'Run setup again' : 'Run setup'}</a>
        </Row>
      </section>

      <section className="card settings-group" aria-labelledby="s-daemon">
        <h2 id="s-daemon" className="section-title">Daemon</h2>
        <Row
          label="Port"
          htmlFor="port"
          help={
            <>
              Takes effect after the daemon restarts.
              {portChanged ? (
                <strong className="restart-note" data-testid="restart-needed">
                  {' '}
                  Restart needed: the port setting changed since the daemon started{runningPort !== null ? ` (it runs on ${runningPort})` : ''}.
                </strong>
              ) : null}
            </>
          }
        >
          <NumberSetting id="port" value={port} unit="" min={1} onSave={(v) => void save({ 'server.port': v }, 'Port')} />
        </Row>
        <Row label="Operator token" help="Used by this console, the tray and the CLI. Rotating it signs out every other console.">
          <button type="button" className="btn" onClick={() => setRotating('operator')}>Rotate…</button>
        </Row>
        <Row label="Hook token" help="Used by the agents' hooks to report events.">
          <button type="button" className="btn" onClick={() => setRotating('hook')}>Rotate…</button>
        </Row>
        {rotated ? <p className="small notice" role="status">{rotated}</p> : null}
      </section>

      <ConfirmDialog
        open={rotating !== null}
        title={`Rotate the ${rotating ?? ''} token?`}
        confirmLabel="Rotate"
        tone="danger"
        onConfirm={() => rotating && void rotate(rotating)}
        onCancel={() => setRotating(null)}
      >
        {rotating === 'operator' ? (
          <p>Every console, tray and CLI using the current operator token loses access until it gets the new one. This window switches over by itself.</p>
        ) : (
          <p>Hooks holding the old token are refused until they read the new one. Events from a refused hook are not recorded (agents keep working: hooks fail open).</p>
        )}
      </ConfirmDialog>
    </div>
  );
}
