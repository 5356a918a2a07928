/**
 * The tray's quick-instruct window: a small window on the console's `#/quick-instruct` route (the
 * renderer preselects the most recent steerable session and shows the instruction's fate).
 */
import type { BrowserWindow } from 'electron';
import { createSecureWindow } from './secure-window';

/** What the window needs. */
export interface QuickInstructDeps {
  readonly appOrigin: string;
  readonly consoleUrl: string;
  readonly preload: string;
  readonly icon: string;
  readonly onError: (message: string) => void;
}

let quick: BrowserWindow | null = null;

/** Opens the quick-instruct window (or focuses it), optionally for a given session. */
export function showQuickInstruct(deps: QuickInstructDeps, session?: string): BrowserWindow {
  const route = session !== undefined ? `#/quick-instruct?session=${encodeURIComponent(session)}` : '#/quick-instruct';
  if (quick !== null && !quick.isDestroyed()) {
    quick.show();
    quick.focus();
    return quick;
  }
  const win = createSecureWindow({
    appOrigin: deps.appOrigin,
    preload: deps.preload,
    icon: deps.icon,
    window: {
      title: 'Quick Instruct — AEP Companion',
      width: 480,
      height: 420,
      minWidth: 380,
      minHeight: 320,
      show: false,
      minimizable: false,
      maximizable: false,
      fullscreenable: false,
      alwaysOnTop: true,
      autoHideMenuBar: true,
    },
  });
  quick = win;
  win.setMenu(null);
  win.once('ready-to-show', () => win.show());
  win.on('closed', () => {
    if (quick === win) quick = null;
  });
  void win.loadURL(`${deps.consoleUrl}${route}`).catch((e: Error) => deps.onError(`could not load quick instruct: ${e.message}`));
  return win;
}

/** Closes the quick-instruct window if it is open (at quit). */
export function closeQuickInstruct(): void {
  if (quick !== null && !quick.isDestroyed()) quick.close();
  quick = null;
}
