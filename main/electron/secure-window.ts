/**
 * The one window factory. Every app window is created here with the same locked-down settings:
 * context isolation, sandbox, no Node integration, the narrow preload bridge, no window.open, no
 * navigation away from the daemon's origin (http(s) links go to the system browser), no webviews
 * and no web permissions.
 */
import { BrowserWindow, shell, type BrowserWindowConstructorOptions, type Session } from 'electron';
import { decideNavigation, decideWindowOpen } from './navigation-policy';

/** What a window is made of. */
export interface SecureWindowOptions {
  /** The console's origin: the daemon, e.g. http://127.0.0.1:8787. */
  readonly appOrigin: string;
  readonly preload: string;
  readonly icon?: string;
  /** Size, position, title, parent…; webPreferences are not overridable. */
  readonly window: Omit<BrowserWindowConstructorOptions, 'webPreferences'>;
}

const lockedSessions = new WeakSet<Session>();

/** The console asks for no browser permissions (notifications go through the bridge), so none are granted. */
function lockSession(session: Session): void {
  if (lockedSessions.has(session)) return;
  lockedSessions.add(session);
  session.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.setPermissionCheckHandler(() => false);
}

/** Creates a window with the app's security settings; load its URL with `loadURL`. */
export function createSecureWindow(options: SecureWindowOptions): BrowserWindow {
  const win = new BrowserWindow({
    ...options.window,
    ...(options.icon !== undefined ? { icon: options.icon } : {}),
    webPreferences: {
      preload: options.preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: true,
      // The auxiliary (middle) click would open links outside setWindowOpenHandler's reach.
      disableBlinkFeatures: 'Auxclick',
    },
  });
  const contents = win.webContents;
  lockSession(contents.session);

  contents.setWindowOpenHandler(({ url }) => {
    if (decideWindowOpen(url, options.appOrigin) === 'external') void shell.openExternal(url);
    return { action: 'deny' };
  });
  const guard = (event: Electron.Event, url: string): void => {
    const decision = decideNavigation(url, options.appOrigin);
    if (decision === 'allow') return;
    event.preventDefault();
    if (decision === 'external') void shell.openExternal(url);
  };
  contents.on('will-navigate', guard);
  contents.on('will-redirect', guard);
  contents.on('will-attach-webview', (event) => event.preventDefault());
  return win;
}
