/**
 * The tray icon: maps the pure tray model (tray-items.ts) to Electron's Tray and Menu. The Tray
 * lives in a module-level variable because a Tray that is garbage-collected disappears.
 */
import { Menu, nativeImage, Tray, type MenuItemConstructorOptions } from 'electron';
import { trayIconName, trayItems, trayTooltip, type TrayAction, type TrayIconName, type TrayItem, type TrayState } from './tray-items';

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

/** Re-renders the icon, tooltip and menu for a new state. */
export function updateTray(state: TrayState): void {
  if (tray === null || deps === null) return;
  const icon = trayIconName(state);
  if (icon !== shownIcon) {
    tray.setImage(nativeImage.createFromPath(deps.iconPath(icon)));
    shownIcon = icon;
  }
  tray.setToolTip(trayTooltip(state));
  tray.setContextMenu(Menu.buildFromTemplate(template(trayItems(state), deps.onAction)));
}

/** Removes the tray (at quit). */
export function destroyTray(): void {
  tray?.destroy();
  tray = null;
  shownIcon = null;
  deps = null;
}
