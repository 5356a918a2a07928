/** The console frame: header, banner, the routed view, status bar, and keyboard shortcuts. */
import { useEffect } from 'react';
import { AuditView } from '../views/audit/AuditView';
import { InboxView } from '../views/inbox/InboxView';
import { SessionView } from '../views/session/SessionView';
import { SessionsView } from '../views/sessions/SessionsView';
import { SearchView } from '../views/search/SearchView';
import { StreamView } from '../views/stream/StreamView';
import { SettingsView } from '../views/settings/SettingsView';
import { EmptyState } from '../ui/EmptyState';
import { ConnectionBanner } from './ConnectionBanner';
import { useConsole } from './console-context';
import { Header } from './Header';
import { routeSlots } from './route-slots';
import { StatusBar } from './StatusBar';
import { useAttentionTitle } from './attention-signals';
import { navigate, useRoute, type Route } from './use-route';
import { useFirstRunRedirect } from '../wizard/first-run';

const SHORTCUTS: Record<string, Route> = {
  '1': { name: 'sessions' },
  '2': { name: 'inbox' },
  '3': { name: 'audit' },
  '4': { name: 'settings' },
  '5': { name: 'stream' },
  '6': { name: 'search', q: '' },
};

function RoutedView({ route }: { route: Route }) {
  switch (route.name) {
    case 'sessions':
      return <SessionsView />;
    case 'session':
      return <SessionView id={route.id} event={route.event} />;
    case 'stream':
      return <StreamView />;
    case 'search':
      return <SearchView q={route.q} />;
    case 'inbox':
      return <InboxView />;
    case 'audit':
      return <AuditView />;
    case 'settings':
      return <SettingsView />;
    case 'setup': {
      const Wizard = routeSlots.setup;
      return Wizard ? (
        <Wizard />
      ) : (
        <EmptyState title="Set up your agents" action={<a className="btn btn-primary" href="#/sessions">Back to sessions</a>}>
          <p>
            The setup wizard installs the companion's hooks into Claude Code, Codex CLI, Qwen Code, the VS Code agent and Hermes, showing the exact change before it writes anything. Until it is available here, run{' '}
            <code>npx aep-companion install --vendor &lt;vendor&gt;</code> in a terminal, then start an agent session.
          </p>
        </EmptyState>
      );
    }
    case 'quick-instruct':
      return null;
  }
}

/** The app. */
export function App() {
  const route = useRoute();
  const { connection } = useConsole();
  useFirstRunRedirect(route);
  useAttentionTitle();

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.altKey && !e.ctrlKey && !e.metaKey && SHORTCUTS[e.key]) {
        e.preventDefault();
        navigate(SHORTCUTS[e.key]);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, []);

  if (route.name === 'quick-instruct') {
    // The tray window: no chrome, just the small view.
    const Quick = routeSlots.quickInstruct;
    return <main className="quick">{Quick ? <Quick session={route.session} /> : <p className="muted">Quick instruct is not available in this build.</p>}</main>;
  }

  return (
    <div className="app">
      <a className="skip-link" href="#main">Skip to content</a>
      <Header route={route} />
      <ConnectionBanner />
      <main id="main" className="main" tabIndex={-1}>
        {/* Not signed in, a view could only wait for what never comes: the banner says what to do. */}
        {connection.signedIn ? <RoutedView route={route} /> : null}
      </main>
      <StatusBar />
    </div>
  );
}
