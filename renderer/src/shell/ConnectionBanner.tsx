/** A clear banner while the live connection is down; reconnecting happens on its own. */
import { useNow } from '../ui/use-now';
import { useConsole, useStoreAreas } from './console-context';

/** The banner (renders nothing while connected). */
export function ConnectionBanner() {
  const { store, connection } = useConsole();
  useStoreAreas('connection');
  useNow();
  const c = store.connection;
  if (!connection.signedIn) {
    return (
      <div className="banner banner-bad" role="alert">
        <span>
          <strong>This browser is not signed in to the daemon.</strong> Open the console once from the link <code>serve</code> prints (it ends in <code>#token=…</code>);
          after that, reloads and other tabs of this address work on their own.
        </span>
      </div>
    );
  }
  if (store.tokenRefused) {
    return (
      <div className="banner banner-bad" role="alert" data-testid="token-refused-banner">
        <strong>The daemon refused this console's operator token.</strong> It may have been rotated from another window or the CLI. Open the console again from the link <code>serve</code> prints, or from the desktop app.
      </div>
    );
  }
  if (c.phase === 'open' || c.phase === 'stopped') return null;
  if (c.phase === 'connecting' && c.attempt === 0) return null;
  const seconds = c.retryAt ? Math.max(0, Math.ceil((c.retryAt - Date.now()) / 1000)) : null;
  return (
    <div className="banner banner-warn" role="alert" data-testid="disconnected-banner">
      <span className="banner-pulse" aria-hidden="true" />
      <span>
        <strong>{c.phase === 'unauthorized' ? 'The daemon refused the operator token.' : 'Disconnected from the daemon.'}</strong>{' '}
        {c.phase === 'unauthorized'
          ? 'Open the console again from the link the daemon prints.'
          : `Reconnecting automatically${seconds !== null ? ` (attempt ${c.attempt}${seconds > 0 ? `, next in ${seconds} s` : ''})` : ''}. What you see is kept and resumes exactly where it stopped.`}
        {c.lastError ? <span className="banner-detail"> Last error: {c.lastError}.</span> : null}
      </span>
      <button type="button" className="btn btn-small" onClick={() => store.socket.reconnectNow()}>
        Retry now
      </button>
    </div>
  );
}
