/**
 * The quick-instruct window (#/quick-instruct, opened from the tray; also works in a browser
 * tab): the most recent steerable session preselected, a counted text box, Send with
 * Ctrl/Cmd+Enter, and each sent instruction's state as the stream settles it (accepted,
 * delivered, dropped), through the console's own sender and settlement.
 */
import { useEffect, useMemo, useState } from 'react';
import { MAX_INSTRUCTION_CHARS } from '../../../common/steering';
import { bridge } from '../api/connection-info';
import { instructionItems } from '../model/instructions';
import { steerabilityHelp } from '../model/session-rows';
import { useConsole, useStoreAreas } from '../shell/console-context';
import type { QuickInstructProps } from '../shell/route-slots';
import { Badge } from '../ui/Badge';
import { RelativeTime } from '../ui/RelativeTime';
import { PhaseBadge } from '../views/sessions/PhaseBadge';
import { InstructionList } from '../views/session/InstructionList';
import { defaultSession, liveRows, sessionLabel } from './pick-session';
import './quick-instruct.css';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** The quick-instruct view. */
export function QuickInstruct({ session: asked }: QuickInstructProps) {
  const { store } = useConsole();
  const version = useStoreAreas('sessions', 'fleet', 'status', 'commands', 'connection');
  const [chosen, setChosen] = useState<string | null>(asked);
  const [text, setText] = useState('');
  const [sent, setSent] = useState<readonly string[]>([]);

  const rows = useMemo(() => store.rowsOf(), [store, version]);
  const live = liveRows(rows);
  const fallback = defaultSession(rows);
  // Lock the preselection once a steerable session is known, so the target never moves while typing.
  useEffect(() => {
    if (chosen === null && fallback && rows.find((r) => r.summary.session === fallback)?.steerability.kind === 'ready') setChosen(fallback);
  }, [chosen, fallback, rows]);
  // A session that ended (or a stale link) falls back to the default rather than a dead target.
  const target = chosen && live.some((r) => r.summary.session === chosen) ? chosen : fallback;
  const row = rows.find((r) => r.summary.session === target);
  const steer = row?.steerability;
  const ready = steer?.kind === 'ready' && row?.summary.vendor != null;
  const cap = Math.min(steer?.kind === 'ready' && steer.cap ? steer.cap : MAX_INSTRUCTION_CHARS, MAX_INSTRUCTION_CHARS);
  const over = text.length > cap;
  const canSend = ready && text.trim().length > 0 && !over && store.connection.phase === 'open';

  const items = useMemo(
    () => (target ? instructionItems(target, store.fleet.get(target)?.events ?? [], store.commands, (id) => store.caused(id)).filter((i) => sent.includes(i.id)) : []),
    [store, target, sent, version],
  );

  const send = () => {
    if (!canSend || !row?.summary.vendor || !target) return;
    const command = store.sendInstruction(target, row.summary.vendor, text.trim(), 'tray');
    setSent((prev) => [...prev, command.id]);
    setText('');
  };

  const b = bridge();
  const kill = store.steeringEnabled;
  let blocked: { title: string; body: string; kind: string } | null = null;
  if (store.connection.phase !== 'open' && store.connection.phase !== 'connecting') blocked = { kind: 'offline', title: 'Not connected to the companion', body: 'Reconnecting… Instructions cannot be sent until the daemon answers.' };
  else if (kill === false) blocked = { kind: 'steering-off', title: 'Steering is off', body: 'Nothing is sent to any agent while the steering switch is off. Turn it on from the tray menu (Steering enabled) or the console header, then send.' };
  else if (store.sessionsLoaded && live.length === 0) blocked = { kind: 'no-session', title: 'No agent session is running', body: 'Start Claude Code, Codex, Qwen Code, the VS Code agent or Hermes with the companion’s hooks installed; its session appears here.' };
  else if (store.sessionsLoaded && kill && !live.some((r) => r.steerability.kind === 'ready')) blocked = { kind: 'none-steerable', title: 'No session can be steered', body: 'The running sessions’ hooks were installed without the steering opt-in. Run setup again and turn on steering for that agent.' };

  return (
    <div className="qi" data-testid="quick-instruct">
      <div className="qi-head">
        <h1 className="qi-title">Quick instruct</h1>
        {kill === null ? null : (
          <Badge tone={kill ? 'accent' : 'muted'} dot>
            <span data-testid="qi-steering" data-state={kill ? 'on' : 'off'}>
              steering {kill ? 'on' : 'off'}
            </span>
          </Badge>
        )}
        {b ? (
          <button type="button" className="btn btn-ghost btn-small qi-close" onClick={() => void b['window:close']()} aria-label="Close">
            ✕
          </button>
        ) : null}
      </div>
      {blocked ? (
        <div className="qi-blocked" role="status" data-testid="qi-blocked" data-kind={blocked.kind}>
          <strong>{blocked.title}</strong>
          <span className="small">{blocked.body}</span>
        </div>
      ) : null}
      {!store.sessionsLoaded ? <p className="muted small">Loading sessions…</p> : null}
      {live.length > 0 ? (
        <form
          className="qi-form"
          aria-label="Send an instruction"
          onSubmit={(e) => {
            e.preventDefault();
            send();
          }}
        >
          <label className="qi-label small" htmlFor="qi-session">
            Session
          </label>
          <select id="qi-session" className="input qi-select" value={target ?? ''} onChange={(e) => setChosen(e.target.value)} data-testid="qi-session">
            {live.map((r) => (
              <option key={r.summary.session} value={r.summary.session}>
                {sessionLabel(r)}
              </option>
            ))}
          </select>
          {row ? (
            <div className="qi-facts small muted" data-testid="qi-facts">
              <PhaseBadge phase={row.phase} />
              {row.summary.lastHook ? <span>last hook {row.summary.lastHook}</span> : null}
              <span title={row.summary.cwd ?? undefined}>
                last activity <RelativeTime iso={row.lastActivity} />
              </span>
            </div>
          ) : null}
          <textarea
            className="input qi-text"
            aria-label="Instruction"
            data-testid="qi-text"
            rows={4}
            value={text}
            disabled={!ready}
            placeholder={ready ? 'e.g. “Use the fixtures in test/data; the staging database is read-only.”' : ''}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
                e.preventDefault();
                send();
              } else if (e.key === 'Escape' && b && text === '') {
                // The tray window closes like a popover; a draft is never thrown away by Escape.
                void b['window:close']();
              }
            }}
            autoFocus
          />
          <div className="qi-foot">
            <span className="small muted qi-help" data-testid="qi-help">
              {steer && !ready ? steerabilityHelp(steer) : `Reaches the agent at its next eligible hook. ${isMac ? '⌘' : 'Ctrl'}+Enter to send.`}
            </span>
            <span className={`counter small${over ? ' counter-over' : ''}`} data-testid="qi-counter" aria-live="polite">
              {text.length.toLocaleString('en-US')} / {cap.toLocaleString('en-US')}
            </span>
            <button type="submit" className="btn btn-primary" disabled={!canSend} data-testid="qi-send">
              Send
            </button>
          </div>
        </form>
      ) : null}
      {items.length ? (
        <section className="qi-sent" aria-label="Sent from this window">
          <InstructionList items={items} />
        </section>
      ) : null}
    </div>
  );
}
