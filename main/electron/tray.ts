/**
 * The tray icon: maps the pure tray model (tray-items.ts) to Electron's Tray and Menu. The Tray
 * lives in a module-level variable because a Tray that is garbage-collected disappears.
 */
import { app, BrowserWindow, Menu, nativeImage, Tray, type MenuItemConstructorOptions } from 'electron';
import { trayBadge, trayIconName, trayItems, trayTooltip, type TrayAction, type TrayIconName, type TrayItem, type TrayState } from './tray-items';

let tray: Tray | null = null;
let shownIcon: TrayIconName | null = null;

/** What the tray needs from the shell. */
export interface TrayDeps {
  readonly iconPath: (name: TrayIconName) => string;
  readonly onAction: (action: TrayAction) => void;
  /** A left click on the icon (Windows, most Linux panels) opens the console. */
  readonly onClick: () => void;
}

let deps: TrayDeps | null = null;
let shownItems: readonly TrayItem[] = [];

/** The menu items the tray shows now (empty before the tray exists): for the desktop smoke test. */
export const shownTray = (): { readonly items: readonly TrayItem[] } => ({ items: tray === null ? [] : shownItems });

const template = (items: readonly TrayItem[], onAction: (a: TrayAction) => void): MenuItemConstructorOptions[] =>
  items.map((item): MenuItemConstructorOptions => {
    switch (item.kind) {
      case 'separator':
        return { type: 'separator' };
      case 'label':
        return { label: item.label, enabled: false };
      case 'action':
        return { label: item.label, enabled: item.enabled, click: () => onAction(item.action) };
      case 'checkbox':
        return { type: 'checkbox', label: item.label, checked: item.checked, enabled: item.enabled, click: () => onAction(item.action) };
    }
  });

/** Creates the tray (once) and shows a state. */
export function showTray(state: TrayState, trayDeps: TrayDeps): void {
  deps = trayDeps;
  if (tray === null) {
    shownIcon = trayIconName(state);
    tray = new Tray(nativeImage.createFromPath(trayDeps.iconPath(shownIcon)));
    tray.on('click', () => deps?.onClick());
  }
  updateTray(state);
}

/** Re-renders the icon, tooltip, badge and menu for a new state. */
export function updateTray(state: TrayState): void {
  if (tray === null || deps === null) return;
  const icon = trayIconName(state);
  if (icon !== shownIcon) {
    tray.setImage(nativeImage.createFromPath(deps.iconPath(icon)));
    shownIcon = icon;
  }
  tray.setToolTip(trayTooltip(state));
  // Waiting requests also show outside the window: beside the menu-bar icon (macOS) and as the
  // dock / launcher badge (macOS, Unity-style Linux launchers; elsewhere Electron ignores it).
  const badge = trayBadge(state);
  if (process.platform === 'darwin') tray.setTitle(badge.text);
  app.setBadgeCount(badge.count);
  // Windows has no badge count: the taskbar button of each window carries an overlay icon instead.
  if (process.platform === 'win32') showOverlay(badge.count > 0 ? deps.iconPath('attention') : null, badge.sentence ?? '');
  shownItems = trayItems(state);
  tray.setContextMenu(Menu.buildFromTemplate(template(shownItems, deps.onAction)));
}

/** Sets (or, with null, clears) the taskbar overlay icon of every window, with its spoken description. */
function showOverlay(iconPath: string | null, description: string): void {
  const image = iconPath === null ? null : nativeImage.createFromPath(iconPath);
  for (const window of BrowserWindow.getAllWindows()) if (!window.isDestroyed()) window.setOverlayIcon(image, description);
}

/** Removes the tray (at quit). */
export function destroyTray(): void {
  app.setBadgeCount(0);
  if (process.platform === 'win32') showOverlay(null, '');
  tray?.destroy();
  tray = null;
  shownIcon = null;
  deps = null;
}
