/** The steering composer: multi-line, counted against the vendor's cap, Ctrl/Cmd+Enter to send. */
import { useState } from 'react';
import { MAX_INSTRUCTION_CHARS } from '../../../../common/steering';
import type { VendorId } from '../../../../common/vendors';
import { steerabilityHelp, type Steerability } from '../../model/session-rows';
import { useConsole } from '../../shell/console-context';

const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform);

/** The composer. */
export function Composer({ session, vendor, steerability }: { session: string; vendor: VendorId | null; steerability: Steerability }) {
  const { store } = useConsole();
  const [text, setText] = useState('');
  const cap = Math.min(steerability.kind === 'ready' && steerability.cap ? steerability.cap : MAX_INSTRUCTION_CHARS, MAX_INSTRUCTION_CHARS);
  const length = text.length;
  const over = length > cap;
  const ready = steerability.kind === 'ready' && vendor !== null;
  const canSend = ready && text.trim().length > 0 && !over;

  const send = () => {
    if (!canSend || !vendor) return;
    store.sendInstruction(session, vendor, text.trim());
    setText('');
  };

  return (
    <form
      className="composer"
      aria-label="Send an instruction"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      <label className="composer-label" htmlFor="composer-text">
        Instruct this session
      </label>
      <textarea
        id="composer-text"
        className="input composer-text"
        data-testid="composer"
        rows={4}
        value={text}
        disabled={!ready}
        placeholder={ready ? 'Write it as a plain statement, e.g. “The staging database is read-only; use the fixtures in test/data instead.”' : ''}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
            e.preventDefault();
            send();
          }
        }}
        aria-describedby="composer-help"
      />
      <div className="composer-foot">
        <span id="composer-help" className={`small ${ready ? 'muted' : 'composer-blocked'}`} data-testid="composer-help">
          {ready ? `Reaches the agent at its next eligible hook. ${isMac ? '⌘' : 'Ctrl'}+Enter to send.` : steerabilityHelp(steerability)}
        </span>
        <span className={`counter small${over ? ' counter-over' : ''}`} aria-live="polite" data-testid="composer-counter">
          {length.toLocaleString('en-US')} / {cap.toLocaleString('en-US')}
        </span>
        <button type="submit" className="btn btn-primary" disabled={!canSend} data-testid="composer-send">
          Send
        </button>
      </div>
    </form>
  );
}
