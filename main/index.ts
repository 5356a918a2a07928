/**
 * The Electron composition root. It resolves paths and launch options, takes the single-instance
 * lock, starts the daemon core (the same `startDaemon` the headless `serve` runs, through
 * headless.ts so daemon.json is written the same way), then wires the thin shell around it: the
 * console window on the daemon's own origin, the bootstrap bridge, the menu, the tray,
 * notifications and start at login. Quitting drains the daemon before the process exits.
 */
import { join } from 'node:path';
import { app, BrowserWindow, dialog, shell } from 'electron';
import { installLastResort } from './core/last-resort';
import { createLogger } from './core/logger';
import type { DaemonHandle } from './core/daemon';
import { startHeadless, stopHeadless } from './headless';
import { sqliteBindingForThisProcess } from './sqlite-binding';
import { installAppMenu, type MenuHandlers } from './electron/app-menu';
import { appPaths, dataDirName } from './electron/app-paths';
import { answerFromNotice, notificationActionsSupported, notifyOnAttention } from './electron/attention-notifier';
import { registerBridgeHandlers } from './electron/bridge-handlers';
import { setSteeringFromTray, type DaemonEndpoint } from './electron/daemon-api';
import { parseLaunchOptions, type LaunchOptions } from './electron/launch-options';
import { applyLinuxAutostart, loginItemSettings } from './electron/login-item';
import { showMainWindow, type MainWindowDeps } from './electron/main-window';
import { menuModel } from './electron/menu-model';
import { quitGuard } from './electron/quit-guard';
import { runningLaunched } from './core/launched/launched-feature';
import { showNativeNotification } from './electron/native-notify';
import { closeQuickInstruct, showQuickInstruct } from './electron/quick-instruct-window';
import { destroyTray, shownTray, showTray, updateTray } from './electron/tray';
import { TrayFeed } from './electron/tray-feed';
import { EMPTY_TRAY_STATE, type TrayAction } from './electron/tray-items';

const log = createLogger('shell');
const PRODUCT_NAME = 'AEP Companion';

function boot(): void {
  // A failure no guard caught: reported loudly (stderr and a box), then the app exits.
  installLastResort(process, {
    write: (line) => process.stderr.write(`${line}\n`),
    name: PRODUCT_NAME,
    beforeExit: (message) => {
      try {
        dialog.showErrorBox(`${PRODUCT_NAME} stopped after an internal error`, message);
      } catch {
        // Before the app is ready there is no box; stderr has the report.
      }
    },
  });
  const parsed = parseLaunchOptions(process.argv.slice(1), process.cwd(), process.env);
  if (!parsed.ok) {
    // A terminal user reads stderr; someone who clicked a shortcut sees the box.
    process.stderr.write(`${PRODUCT_NAME}: ${parsed.error}\n`);
    dialog.showErrorBox(`${PRODUCT_NAME} could not start`, parsed.error);
    app.exit(2);
    return;
  }
  const options = parsed.value;

  app.setName(PRODUCT_NAME);
  // The data directory is Electron's userData, pinned to the name the CLI and `serve` look under
  // (~/.config/aep-companion on Linux) whatever the display name, and before the single-instance
  // lock, which lives in userData: one app per data directory.
  const dataDir = options.dataDir ?? join(app.getPath('appData'), dataDirName);
  app.setPath('userData', dataDir);
  if (process.platform === 'win32') app.setAppUserModelId('dev.aep.companion');

  if (!app.requestSingleInstanceLock()) {
    // The running instance hears 'second-instance' and shows its window.
    app.quit();
    return;
  }
  let shellReady: ((route?: string) => void) | null = null;
  app.on('second-instance', () => shellReady?.());
  // The tray keeps the app alive with every window closed (Quit is explicit).
  app.on('window-all-closed', () => undefined);

  app
    .whenReady()
    .then(() => start(options, dataDir, (open) => (shellReady = open)))
    .catch((e: Error) => {
      dialog.showErrorBox(`${PRODUCT_NAME} could not start`, e.message);
      app.exit(1);
    });
}

async function start(options: LaunchOptions, dataDir: string, onOpenReady: (open: (route?: string) => void) => void): Promise<void> {
  const paths = appPaths({ appPath: app.getAppPath(), resourcesPath: process.resourcesPath, packaged: app.isPackaged, platform: process.platform });
  let startError = '';
  // Electron's ABI is not the Node ABI the tree's better-sqlite3 was built for: in development the
  // binding `npm start` prepared for Electron is loaded; the packaged app's own was rebuilt for it.
  const nativeBinding = app.isPackaged ? undefined : sqliteBindingForThisProcess();
  const daemon: DaemonHandle | null = await startHeadless(
    // The --port launch option wins; without it the daemon binds the stored `server.port` (8787 by default).
    { dataDir, port: options.port ?? undefined, consoleDir: paths.consoleDir, version: app.getVersion(), nativeBinding },
    {
      // The browser link with the operator token is for `serve`; the desktop window gets the
      // token over the bridge, so it is kept off this process's stdout.
      out: (line) => {
        if (!line.includes('#token=')) process.stdout.write(`${line}\n`);
      },
      err: (line) => {
        startError = line;
        process.stderr.write(`${line}\n`);
      },
    },
  );
  if (daemon === null) {
    const hint = !app.isPackaged && nativeBinding === undefined ? ' (start the app with npm start, which prepares SQLite for Electron)' : '';
    dialog.showErrorBox(`${PRODUCT_NAME} could not start`, `${startError.replace(/^aep-companion serve: /, '')}${hint}`);
    app.exit(1);
    return;
  }
  const settings = daemon.context.settings;
  const appOrigin = new URL(daemon.url).origin;
  const consoleUrl = `${daemon.url}/`;
  const endpoint: DaemonEndpoint = { url: daemon.url, operatorToken: () => daemon.tokens.operator };
  const onError = (message: string): void => log.warn(message);
  let quitting = false;

  const windowDeps: MainWindowDeps = {
    appOrigin,
    consoleUrl,
    preload: paths.preload,
    icon: paths.appIcon,
    stateFile: join(dataDir, 'window-state.json'),
    quitting: () => quitting,
    onError,
  };
  const openConsole = (route?: string): void => {
    showMainWindow(windowDeps, route !== undefined ? { route } : {});
  };
  const quickInstruct = (): void => {
    showQuickInstruct({ appOrigin, consoleUrl, preload: paths.preload, icon: paths.appIcon, onError });
  };

  const removeBridge = registerBridgeHandlers({
    appOrigin,
    bootstrap: () => ({ baseUrl: daemon.url, operatorToken: daemon.tokens.operator, platform: process.platform, skipWizard: options.skipWizard }),
    notify: (n) => showNativeNotification(n, paths.appIcon, (route) => openConsole(route)),
    openExternal: (url) => void shell.openExternal(url),
    closeWindow: (sender) => BrowserWindow.fromWebContents(sender)?.close(),
  });

  const menuHandlers: MenuHandlers = {
    'route:sessions': () => openConsole('#/sessions'),
    'route:inbox': () => openConsole('#/inbox'),
    'route:audit': () => openConsole('#/audit'),
    'route:settings': () => openConsole('#/settings'),
    'route:setup': () => openConsole('#/setup'),
    'quick-instruct': quickInstruct,
    // The same link `serve` prints: the token travels in the fragment, which browsers never send.
    'open-in-browser': () => void shell.openExternal(`${daemon.url}/#token=${daemon.tokens.operator}`),
    'open-data-dir': () => void shell.openPath(dataDir),
    'close-window': () => BrowserWindow.getFocusedWindow()?.close(),
    quit: () => app.quit(),
  };
  installAppMenu(menuModel({ platform: process.platform, appName: PRODUCT_NAME, devTools: !app.isPackaged }), menuHandlers);

  const stopNotifier = notifyOnAttention({
    relay: daemon.context.relay,
    enabled: () => settings.get('ui.notifications'),
    canAct: notificationActionsSupported(process.platform),
    show: (n) =>
      showNativeNotification(n, paths.appIcon, (route) => openConsole(route), (option) =>
        // A refused answer (already answered, steering off) opens the card, which says why.
        void answerFromNotice(daemon.context.relay, n, option).then((refusal) => {
          if (refusal !== null) openConsole(n.route);
        }),
      ),
  });

  const feed = new TrayFeed({ endpoint, relay: daemon.context.relay, settings, onState: updateTray });
  const onTrayAction = async (action: TrayAction): Promise<void> => {
    switch (action.type) {
      case 'open-session':
        return openConsole(`#/sessions/${encodeURIComponent(action.session)}`);
      case 'open-inbox':
        return openConsole('#/inbox');
      case 'quick-instruct':
        return quickInstruct();
      case 'open-console':
        return openConsole();
      case 'quit':
        return app.quit();
      case 'set-steering': {
        if (action.enabled) {
          // Enabling asks first, as the console's switch does; disabling is one click.
          const answer = await dialog.showMessageBox({
            type: 'question',
            buttons: ['Enable steering', 'Cancel'],
            defaultId: 1,
            cancelId: 1,
            title: 'Enable steering?',
            message: 'Enable steering?',
            detail: 'Instructions you send will reach the agent sessions that opted in, at their next eligible hook. You can turn it off at any time.',
          });
          if (answer.response !== 0) return void feed.refresh();
        }
        const result = await setSteeringFromTray(endpoint, action.enabled);
        if (!result.ok) dialog.showErrorBox('Steering was not changed', result.error.message);
        await feed.refresh();
        return;
      }
    }
  };
  showTray(EMPTY_TRAY_STATE, {
    iconPath: paths.trayIcon,
    onAction: (action) => void onTrayAction(action).catch((e: Error) => onError(`tray action failed: ${e.message}`)),
    onClick: () => openConsole(),
  });
  void feed.refresh();
  // The desktop smoke test (test/electron) reads the tray's menu from the main process's globals.
  if (process.env.AEP_COMPANION_INSPECT === '1') Object.assign(globalThis, { aepCompanionTray: shownTray });

  const applyStartAtLogin = (enabled: boolean): void => {
    try {
      if (process.platform === 'linux') {
        const command = app.isPackaged ? [process.env.APPIMAGE || process.execPath] : [process.execPath, app.getAppPath()];
        applyLinuxAutostart(process.env.XDG_CONFIG_HOME || join(app.getPath('home'), '.config'), enabled, command);
      } else {
        app.setLoginItemSettings(loginItemSettings(enabled, app.isPackaged ? undefined : app.getAppPath()));
      }
    } catch (e) {
      onError(`could not change start at login: ${(e as Error).message}`);
    }
  };
  // Only a change is applied: an untouched setting leaves the OS login items alone.
  const stopLoginWatch = settings.onChange((changed, now) => {
    if (changed.includes('app.startAtLogin')) applyStartAtLogin(now['app.startAtLogin']);
  });
  if (settings.get('app.startAtLogin')) applyStartAtLogin(true);

  app.on('activate', () => openConsole());
  // Quitting ends the launched sessions (the daemon drains): while any runs, the user confirms first.
  app.on(
    'before-quit',
    quitGuard({
      running: () => runningLaunched(daemon.context),
      ask: async (prompt) => (await dialog.showMessageBox({ ...prompt, buttons: [...prompt.buttons] })).response,
      quit: () => app.quit(),
      proceed: () => {
        quitting = true;
      },
      onError,
    }),
  );
  let drained = false;
  app.on('will-quit', (event) => {
    if (drained) return;
    // Electron would exit before the daemon's close() settles; hold the quit until it has.
    event.preventDefault();
    feed.close();
    stopNotifier();
    stopLoginWatch();
    removeBridge();
    closeQuickInstruct();
    destroyTray();
    void stopHeadless(daemon)
      .catch((e: Error) => process.stderr.write(`${PRODUCT_NAME}: shutdown: ${e.message}\n`))
      .finally(() => {
        drained = true;
        app.exit(0);
      });
  });

  onOpenReady((route) => openConsole(route));
  // A login launch (--hidden) starts in the tray; the window opens from the tray or a second launch.
  if (!options.hidden) openConsole();
  else log.info('started hidden in the tray');
}

boot();
