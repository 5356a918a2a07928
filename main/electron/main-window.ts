/**
 * The console window: one at a time, its size and position remembered (window-state.ts), and
 * closing it hides it to the tray; only Quit ends the app.
 */
import { screen, type BrowserWindow } from 'electron';
import { createSecureWindow } from './secure-window';
import { captureWindowState, fitToDisplays, loadWindowState, MIN_SIZE, saveWindowState } from './window-state';

/** What the console window needs. */
export interface MainWindowDeps {
  readonly appOrigin: string;
  /** The console's URL (the daemon's `/`). */
  readonly consoleUrl: string;
  readonly preload: string;
  readonly icon: string;
  /** The JSON file the window state is kept in. */
  readonly stateFile: string;
  /** True once the app is quitting: then closing really closes. */
  readonly quitting: () => boolean;
  readonly onError: (message: string) => void;
}

let main: BrowserWindow | null = null;

const saveState = (win: BrowserWindow, file: string, onError: (m: string) => void): void => {
  try {
    saveWindowState(file, captureWindowState(win.getNormalBounds(), win.isMaximized()));
  } catch (e) {
    onError(`could not save the window state: ${(e as Error).message}`);
  }
};

/** The console window if it exists. */
export function mainWindow(): BrowserWindow | null {
  return main !== null && !main.isDestroyed() ? main : null;
}

/** Creates the console window, or shows and focuses the existing one; `route` (validated) opens a view. */
export function showMainWindow(deps: MainWindowDeps, options: { route?: string; show?: boolean } = {}): BrowserWindow {
  const existing = mainWindow();
  if (existing !== null) {
    if (options.route !== undefined) void navigateTo(existing, options.route);
    if (options.show !== false) {
      if (existing.isMinimized()) existing.restore();
      existing.show();
      existing.focus();
    }
    return existing;
  }
  const state = fitToDisplays(
    loadWindowState(deps.stateFile),
    screen.getAllDisplays().map((d) => d.workArea),
  );
  const win = createSecureWindow({
    appOrigin: deps.appOrigin,
    preload: deps.preload,
    icon: deps.icon,
    window: {
      title: 'AEP Companion',
      width: state.width,
      height: state.height,
      ...(state.x !== undefined && state.y !== undefined ? { x: state.x, y: state.y } : {}),
      minWidth: MIN_SIZE.width,
      minHeight: MIN_SIZE.height,
      show: false,
    },
  });
  main = win;
  if (state.maximized) win.maximize();
  win.once('ready-to-show', () => {
    if (options.show !== false) win.show();
  });
  win.on('close', (event) => {
    saveState(win, deps.stateFile, deps.onError);
    if (deps.quitting()) return;
    // The app keeps watching sessions from the tray; Quit (menu or tray) ends it.
    event.preventDefault();
    win.hide();
  });
  win.on('closed', () => {
    if (main === win) main = null;
  });
  void win.loadURL(`${deps.consoleUrl}${options.route ?? ''}`).catch((e: Error) => deps.onError(`could not load the console: ${e.message}`));
  return win;
}

/** Switches an open console window to a route (`#/inbox`, …), keeping the page (and its live connection) when it can. */
export function navigateTo(win: BrowserWindow, route: string): Promise<unknown> {
  // Routes come from trusted code or parseRoute; JSON.stringify keeps the route a string literal.
  return win.webContents
    .executeJavaScript(`window.location.hash = ${JSON.stringify(route)};`, false)
    .catch(() => win.loadURL(`${win.webContents.getURL().split('#')[0]}${route}`))
    .catch(() => undefined);
}
