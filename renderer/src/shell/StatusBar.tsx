/** The status bar: connection, relay counts, last hook per vendor. */
import { VENDOR_NAMES, VENDORS } from '../../../common/vendors';
import { count } from '../ui/format';
import { RelativeTime } from '../ui/RelativeTime';
import { useConsole, useStoreAreas } from './console-context';

const plural = (n: number, word: string): string => `${count(n)} ${word}${n === 1 ? '' : 's'}`;

const PHASE_LABEL = { open: 'Connected', connecting: 'Connecting…', reconnecting: 'Reconnecting…', unauthorized: 'Token refused', stopped: 'Stopped' } as const;

/** The bar at the bottom of the window. */
export function StatusBar() {
  const { store, connection } = useConsole();
  useStoreAreas('connection', 'status');
  if (!connection.signedIn) {
    // Nothing connects without a sign-in; the banner above says how to sign in.
    return (
      <footer className="statusbar" aria-label="Daemon status">
        <span className="conn conn-signed-out" data-testid="connection-state" data-phase="signed-out">
          <span className="conn-dot" aria-hidden="true" />
          Not signed in
        </span>
        <span className="muted">Nothing loads until this browser is signed in (see above).</span>
      </footer>
    );
  }
  const s = store.status;
  const phase = store.connection.phase;
  const seen = VENDORS.filter((v) => s?.lastHook[v]);
  return (
    <footer className="statusbar" aria-label="Daemon status">
      <span className={`conn conn-${phase}`} data-testid="connection-state" data-phase={phase}>
        <span className="conn-dot" aria-hidden="true" />
        {PHASE_LABEL[phase]}
      </span>
      {s ? (
        <>
          <span title="Events held by the relay">{plural(s.counts.events, 'event')}</span>
          <span>{plural(s.counts.sessions, 'session')}</span>
          <span title="Live WebSocket and SSE consumers">{plural(s.counts.subscribers, 'subscriber')}</span>
        </>
      ) : (
        <span className="muted">{store.statusError ? `Status unavailable: ${store.statusError}` : 'Loading status…'}</span>
      )}
      <span className="statusbar-spacer" />
      {s ? (
        seen.length ? (
          <span className="lasthooks">
            Last hook:
            {seen.map((v) => (
              <span key={v} className="lasthook">
                {VENDOR_NAMES[v]} <RelativeTime iso={s.lastHook[v]} />
              </span>
            ))}
          </span>
        ) : (
          <span className="muted">No hook calls received yet</span>
        )
      ) : null}
      {s ? <span className="muted" title={s.dataDir}>v{s.version}</span> : null}
    </footer>
  );
}
