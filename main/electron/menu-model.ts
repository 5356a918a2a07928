/**
 * The application menu as plain data, a pure function of the platform: commands carry ids that
 * the Electron adapter (app-menu.ts) wires to handlers, standard items keep Electron's roles so
 * the OS text editing, window and zoom behaviours work as users expect.
 */

/** Things the menu asks the app to do. */
export type MenuCommand =
  | 'route:sessions'
  | 'route:inbox'
  | 'route:audit'
  | 'route:settings'
  | 'route:setup'
  | 'quick-instruct'
  | 'open-in-browser'
  | 'open-data-dir'
  | 'close-window'
  | 'quit';

/** Electron menu roles the model uses. */
export type MenuRole =
  | 'about'
  | 'services'
  | 'hide'
  | 'hideOthers'
  | 'unhide'
  | 'undo'
  | 'redo'
  | 'cut'
  | 'copy'
  | 'paste'
  | 'selectAll'
  | 'reload'
  | 'toggleDevTools'
  | 'resetZoom'
  | 'zoomIn'
  | 'zoomOut'
  | 'togglefullscreen'
  | 'minimize'
  | 'zoom'
  | 'front';

/** One menu entry. */
export type MenuNode =
  | { readonly kind: 'separator' }
  | { readonly kind: 'role'; readonly role: MenuRole }
  | { readonly kind: 'command'; readonly id: MenuCommand; readonly label: string; readonly accelerator?: string }
  | { readonly kind: 'submenu'; readonly label: string; readonly items: readonly MenuNode[] };

/** What the menu depends on. */
export interface MenuModelInput {
  readonly platform: NodeJS.Platform;
  readonly appName: string;
  /** Developer tools are offered only in unpackaged builds. */
  readonly devTools: boolean;
}

const sep: MenuNode = { kind: 'separator' };
const role = (r: MenuRole): MenuNode => ({ kind: 'role', role: r });
const command = (id: MenuCommand, label: string, accelerator?: string): MenuNode =>
  accelerator === undefined ? { kind: 'command', id, label } : { kind: 'command', id, label, accelerator };

/** The application menu for a platform. */
export function menuModel(input: MenuModelInput): MenuNode[] {
  const mac = input.platform === 'darwin';
  const menu: MenuNode[] = [];
  if (mac) {
    menu.push({
      kind: 'submenu',
      label: input.appName,
      items: [role('about'), sep, command('route:settings', 'Settings…', 'CmdOrCtrl+,'), sep, role('services'), sep, role('hide'), role('hideOthers'), role('unhide'), sep, command('quit', `Quit ${input.appName}`, 'CmdOrCtrl+Q')],
    });
  }
  menu.push({
    kind: 'submenu',
    label: mac ? 'File' : '&File',
    items: [
      command('quick-instruct', 'Quick Instruct…', 'CmdOrCtrl+Shift+K'),
      command('open-in-browser', 'Open Console in Browser'),
      command('open-data-dir', 'Show Data Folder'),
      sep,
      // Closing the window keeps the app running in the tray; Quit is the way out.
      command('close-window', 'Close Window', 'CmdOrCtrl+W'),
      // On macOS Settings and Quit live in the app menu, per the platform's convention.
      ...(mac ? [] : [sep, command('route:settings', 'Settings…', 'CmdOrCtrl+,'), command('quit', 'Quit', 'CmdOrCtrl+Q')]),
    ],
  });
  menu.push({
    kind: 'submenu',
    label: mac ? 'Edit' : '&Edit',
    items: [role('undo'), role('redo'), sep, role('cut'), role('copy'), role('paste'), role('selectAll')],
  });
  menu.push({
    kind: 'submenu',
    label: mac ? 'View' : '&View',
    items: [
      command('route:sessions', 'Sessions', 'CmdOrCtrl+1'),
      command('route:inbox', 'Attention Inbox', 'CmdOrCtrl+2'),
      command('route:audit', 'Audit', 'CmdOrCtrl+3'),
      sep,
      role('reload'),
      ...(input.devTools ? [role('toggleDevTools')] : []),
      sep,
      role('resetZoom'),
      role('zoomIn'),
      role('zoomOut'),
      sep,
      role('togglefullscreen'),
    ],
  });
  menu.push({
    kind: 'submenu',
    label: mac ? 'Window' : '&Window',
    items: mac ? [role('minimize'), role('zoom'), sep, role('front')] : [role('minimize')],
  });
  menu.push({
    kind: 'submenu',
    label: mac ? 'Help' : '&Help',
    items: [command('route:setup', 'Set Up Agents…')],
  });
  return menu;
}

/** Every command reachable in a menu (tests and the adapter check that each has a handler). */
export function menuCommands(menu: readonly MenuNode[]): MenuCommand[] {
  const out: MenuCommand[] = [];
  const walk = (nodes: readonly MenuNode[]): void => {
    for (const n of nodes) {
      if (n.kind === 'command') out.push(n.id);
      else if (n.kind === 'submenu') walk(n.items);
    }
  };
  walk(menu);
  return out;
}
