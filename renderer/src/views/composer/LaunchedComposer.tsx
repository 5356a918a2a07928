/**
 * The composer of a launched session: per message only what the session can honestly do now
 * (Send, or while it generates: Send now when mid-turn steering was negotiated, Queue, Stop and
 * send), the sentence saying what will happen, and Stop / End session, each confirmed first
 * (Stop holds the session's queue until the operator resumes it or sends).
 */
import { useEffect, useId, useState } from 'react';
import type { Delivery } from '../../../../common/agent-inputs';
import { MAX_INPUT_CHARS, sendInputType, type LaunchedSessionInfo, type LaunchedState } from '../../../../common/agents';
import { settle } from '../../model/command-settlement';
import type { SentCommand } from '../../model/command-sender';
import { streamState } from '../../model/session-rows';
import { useConsole, useStoreAreas } from '../../shell/console-context';
import { ConfirmDialog } from '../../ui/ConfirmDialog';
import { blockedReason, sendOptions } from './composer-options';
import { PendingListOf, usePending } from './PendingList';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** The composer and, below it, what waits to be sent (one pending list, which also says whether Stop holds the queue). */
export function LaunchedControls({ info }: { info: LaunchedSessionInfo }) {
  const pending = usePending(info.session);
  const paused = pending.list?.paused ? pending.list.items.length : null;
  return (
    <>
      <LaunchedComposer info={info} held={paused} />
      <PendingListOf session={info.session} pending={pending} />
    </>
  );
}

/** The composer; `held`: how many messages a Stop holds (null: the queue flows). */
export function LaunchedComposer({ info, held = null }: { info: LaunchedSessionInfo; held?: number | null }) {
  const { store, api } = useConsole();
  useStoreAreas('sessions', 'status');
  const [text, setText] = useState('');
  const [choice, setChoice] = useState<Delivery | null>(null);
  const [error, setError] = useState<string | null>(null);
  const groupId = useId();
  useStoreAreas('fleet');
  const routed = store.roster.accepts(info.session).includes(sendInputType(info.agent));
  // The stream is newer than the polled record: a run start or end decides generating vs idle.
  const phase = streamState(store.fleet.get(info.session)?.events ?? []).phase;
  const state: LaunchedState = info.state === 'ended' || info.state === 'resumable' || phase === 'ended' ? (info.state === 'resumable' ? 'resumable' : 'ended') : phase === 'working' ? 'generating' : phase === 'idle' ? 'idle' : info.state;
  const facts = { state, support: info.steer ?? null, routed, steeringOn: store.steeringEnabled, held };
  const options = sendOptions(facts);
  const blocked = blockedReason(facts);
  const chosen = options.find((o) => o.delivery === choice) ?? options[0];
  // A mode that is no longer offered (the turn ended, the toggle went off) falls back to the default.
  useEffect(() => {
    if (choice && !options.some((o) => o.delivery === choice)) setChoice(null);
  }, [choice, options]);
  const over = text.length > MAX_INPUT_CHARS;
  const canSend = !!chosen && text.trim().length > 0 && !over;
  const generating = state === 'generating';

  const send = () => {
    if (!canSend || !chosen) return;
    // Operator-authored text: redacted class (the command declares it).
    store.sendCommand({ type: sendInputType(info.agent), session: info.session, capture: 'redacted', data: { text: text.trim(), delivery: chosen.delivery } }, text.trim());
    setText('');
    setChoice(null);
  };
  const [stop, setStop] = useState<SentCommand | null>(null);
  const [confirming, setConfirming] = useState<'stop' | 'end' | null>(null);
  // AEP-0004 §5: scope "run" cancels the running turn (the session stays).
  const cancel = () => setStop(store.sendCommand({ type: 'control.cancel', session: info.session, data: { scope: 'run' } }));
  const stopState = stop ? settle(store.caused(stop.id), { sent: stop.sent, timedOut: stop.timedOut, refusal: stop.refusal }) : null;
  const end = async () => {
    const r = await api('POST /api/launched/end', { session: info.session });
    setError(r.ok ? null : r.error.message);
    void store.refreshLaunched();
  };
  // A resumable session (its agent advertised loadSession) becomes promptable again through session/load.
  const resume = async () => {
    const r = await api('POST /api/launched/resume', { session: info.session });
    setError(r.ok ? null : r.error.message);
    void store.refreshLaunched();
  };

  return (
    <form
      className="composer"
      aria-label="Send a message"
      data-testid="launched-composer"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label className="composer-label" htmlFor="launched-text">
        Message this session
      </label>
      {options.length > 1 ? (
        <div className="segmented composer-modes" role="radiogroup" aria-label="How to deliver it" id={groupId}>
          {options.map((o) => (
            <button key={o.delivery} type="button" role="radio" aria-checked={o.delivery === chosen?.delivery} onClick={() => setChoice(o.delivery)} data-testid={`mode-${o.delivery}`}>
              {o.label}
            </button>
          ))}
        </div>
      ) : null}
      <textarea
        id="launched-text"
        className="input composer-text"
        data-testid="launched-text"
        rows={3}
        value={text}
        disabled={!!blocked}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            send();
          }
        }}
        aria-describedby="launched-says"
      />
      <p id="launched-says" className={`small ${blocked ? 'composer-blocked' : 'muted'}`} data-testid="composer-says" aria-live="polite">
        {blocked ?? `${chosen?.says ?? ''} ${isMac ? '⌘' : 'Ctrl'}+Enter to send.`}
      </p>
      {info.steer ? (
        <p className="small muted" data-testid="steer-badge" title={info.steer.reason}>
          Sent while it works: {info.steer.badge} ({info.steer.reason})
          {info.steer.mode === 'next-turn' ? (
            <>
              {' '}
              — queue only while it works.{' '}
              <a href="#/settings" data-testid="midturn-settings-link">
                Mid-turn steering in Settings
              </a>
            </>
          ) : null}
        </p>
      ) : null}
      <div className="composer-foot">
        <span />
        {generating ? (
          <button type="button" className="btn btn-danger-soft" onClick={() => setConfirming('stop')} data-testid="cancel-turn">
            Stop turn
          </button>
        ) : null}
        {state === 'resumable' ? (
          <button type="button" className="btn btn-ghost" onClick={() => void resume()} data-testid="resume-session">
            Resume session
          </button>
        ) : null}
        {state !== 'ended' && state !== 'resumable' ? (
          <button type="button" className="btn btn-ghost" onClick={() => setConfirming('end')} data-testid="end-session">
            End session
          </button>
        ) : null}
        <button type="submit" className="btn btn-primary" disabled={!canSend} data-testid="launched-send">
          {chosen?.label ?? 'Send'}
        </button>
      </div>
      {stopState && (stopState.phase === 'rejected' || stopState.phase === 'refused' || stopState.phase === 'unsent') ? (
        <p className="small composer-blocked" role="alert" data-testid="cancel-refused">
          Stop was not carried out: {stopState.reason ?? stopState.phase}
          {stopState.detail ? ` (${stopState.detail})` : ''}.
        </p>
      ) : null}
      {error ? (
        <p className="small composer-blocked" role="alert">
          {error}
        </p>
      ) : null}
      <ConfirmDialog
        open={confirming === 'stop'}
        title="Stop the running turn?"
        confirmLabel="Stop turn"
        tone="danger"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          setConfirming(null);
          cancel();
        }}
      >
        <p data-testid="confirm-stop-text">
          The agent stops where it is; its work so far stays. Messages waiting in the queue are held (paused) and not sent until you resume them or send a new message. To stop and send
          something next in one step, use <em>Stop and send</em>.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'end'}
        title="End this session?"
        confirmLabel="End session"
        tone="danger"
        onCancel={() => setConfirming(null)}
        onConfirm={() => {
          setConfirming(null);
          void end();
        }}
      >
        <p data-testid="confirm-end-text">
          The agent is closed: a running turn is cancelled, queued messages are dropped, and nothing can be sent to this session any more.
        </p>
      </ConfirmDialog>
    </form>
  );
}
