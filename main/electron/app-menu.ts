/** Installs the application menu: maps the pure menu model (menu-model.ts) to Electron's Menu. */
import { Menu, type MenuItemConstructorOptions } from 'electron';
import type { MenuCommand, MenuNode } from './menu-model';

/** Handlers for every command of the model. */
export type MenuHandlers = Readonly<Record<MenuCommand, () => void>>;

/** The Electron template of a menu model. */
export function menuTemplate(nodes: readonly MenuNode[], handlers: MenuHandlers): MenuItemConstructorOptions[] {
  return nodes.map((node): MenuItemConstructorOptions => {
    switch (node.kind) {
      case 'separator':
        return { type: 'separator' };
      case 'role':
        return { role: node.role };
      case 'command':
        return { label: node.label, accelerator: node.accelerator, click: () => handlers[node.id]() };
      case 'submenu':
        return { label: node.label, submenu: menuTemplate(node.items, handlers) };
    }
  });
}

/** Sets the application menu. */
export function installAppMenu(nodes: readonly MenuNode[], handlers: MenuHandlers): void {
  Menu.setApplicationMenu(Menu.buildFromTemplate(menuTemplate(nodes, handlers)));
}
