/** Console entry: resolve the daemon and token, start the store, render. */
import { createRoot } from 'react-dom/client';
import { StrictMode } from 'react';
import { createApiClient } from './api/api-client';
import { requestCookie, resolveConnection } from './api/connection-info';
import { ConsoleStore } from './model/console-store';
import { App } from './shell/App';
import { notifyInBrowser } from './shell/attention-signals';
import './wizard/register';
import './quick-instruct/register';
import { ConsoleContext, type ConsoleServices } from './shell/console-context';
import { applyTheme, cachedTheme } from './shell/theme';
import './styles/tokens.css';
import './styles/base.css';
import './styles/shell.css';
import './styles/views.css';
import './styles/content.css';
import './styles/operate.css';

applyTheme(cachedTheme());

async function boot(): Promise<void> {
  const connection = await resolveConnection();
  let token = connection.token;
  // A rotation through the client adopts the new token before held requests go (adoptToken below).
  const api = createApiClient(connection.baseUrl, () => token, { adoptOperatorToken: (next) => services.adoptToken(next) });
  const store: ConsoleStore = new ConsoleStore({
    baseUrl: connection.baseUrl,
    api,
    token: () => token,
    // Electron notifies natively from the main process; a browser tab does it here when allowed.
    onAttention: connection.mode === 'browser' ? (event) => notifyInBrowser(event, store) : undefined,
  });
  const services: ConsoleServices = {
    store,
    api,
    connection,
    token: () => token,
    adoptToken: (next) => {
      if (next === token) return;
      token = next;
      // A browser tab renews its cookie, so a reload or another tab follows the rotation.
      if (connection.mode === 'browser') void requestCookie(connection.baseUrl, next);
      store.socket.drop('reconnecting with the new operator token');
    },
  };
  if (connection.signedIn) {
    store.start();
    void api('GET /api/settings', undefined).then((r) => {
      if (r.ok) applyTheme(r.value['ui.theme']);
    });
  }
  // Test and benchmark handle: the store is the console's public state, nothing secret.
  (window as unknown as { aepConsole?: ConsoleStore }).aepConsole = store;
  window.addEventListener('beforeunload', () => store.stop());
  createRoot(document.getElementById('root')!).render(
    <StrictMode>
      <ConsoleContext.Provider value={services}>
        <App />
      </ConsoleContext.Provider>
    </StrictMode>,
  );
}

void boot();
