/** The top bar: product name, navigation (with the open attention count) and the kill switch. */
import { useMemo } from 'react';
import { attentionItems } from '../model/attention-items';
import { useConsole, useStoreAreas } from './console-context';
import { KillSwitch } from './KillSwitch';
import type { Route } from './use-route';

const TABS = [
  { name: 'sessions', label: 'Sessions', key: '1' },
  { name: 'inbox', label: 'Inbox', key: '2' },
  { name: 'stream', label: 'Stream', key: '5' },
  { name: 'search', label: 'Search', key: '6' },
  { name: 'audit', label: 'Audit', key: '3' },
  { name: 'settings', label: 'Settings', key: '4' },
] as const;

/** The header. */
export function Header({ route }: { route: Route }) {
  const { store } = useConsole();
  const version = useStoreAreas('fleet');
  const open = useMemo(() => attentionItems(store.fleet, store.bySubject).open.length, [store, version]);
  const active = route.name === 'session' ? 'sessions' : route.name;
  return (
    <header className="header">
      <a className="brand" href="#/sessions" aria-label="AEP Companion, sessions">
        <svg className="brand-mark" viewBox="0 0 24 24" aria-hidden="true">
          <path d="M12 2.5 21 7.5v9L12 21.5 3 16.5v-9L12 2.5Z" fill="none" stroke="currentColor" strokeWidth="1.6" strokeLinejoin="round" />
          <circle cx="12" cy="12" r="3.2" fill="currentColor" />
        </svg>
        <span className="brand-name">AEP Companion</span>
      </a>
      <nav className="tabs" aria-label="Views">
        {TABS.map((t) => (
          <a key={t.name} href={`#/${t.name}`} className={`tab${active === t.name ? ' tab-active' : ''}`} aria-current={active === t.name ? 'page' : undefined} title={`${t.label} (Alt+${t.key})`}>
            {t.label}
            {t.name === 'inbox' && open > 0 ? (
              <span className="tab-count" data-testid="inbox-count" aria-label={`${open} open`}>
                {open}
              </span>
            ) : null}
          </a>
        ))}
      </nav>
      <div className="header-end">
        <KillSwitch />
      </div>
    </header>
  );
}
