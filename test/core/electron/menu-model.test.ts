import { describe, expect, it } from 'vitest';
import { menuCommands, menuModel, type MenuNode } from '../../../main/electron/menu-model';

const labels = (menu: MenuNode[]) => menu.map((n) => (n.kind === 'submenu' ? n.label : n.kind));
const submenu = (menu: MenuNode[], label: string) => {
  const found = menu.find((n) => n.kind === 'submenu' && n.label.replace('&', '') === label);
  if (found === undefined || found.kind !== 'submenu') throw new Error(`no ${label} menu`);
  return found.items;
};
const roles = (items: readonly MenuNode[]) => items.flatMap((n) => (n.kind === 'role' ? [n.role] : []));

describe('application menu model', () => {
  it('has the app menu with Settings and Quit on macOS only', () => {
    const mac = menuModel({ platform: 'darwin', appName: 'AEP Companion', devTools: false });
    expect(labels(mac)).toEqual(['AEP Companion', 'File', 'Edit', 'View', 'Window', 'Help']);
    expect(menuCommands(submenu(mac, 'AEP Companion'))).toEqual(['route:settings', 'quit']);
    expect(menuCommands(submenu(mac, 'File'))).not.toContain('quit');

    const linux = menuModel({ platform: 'linux', appName: 'AEP Companion', devTools: false });
    expect(labels(linux)).toEqual(['&File', '&Edit', '&View', '&Window', '&Help']);
    expect(menuCommands(submenu(linux, 'File'))).toEqual(['quick-instruct', 'open-in-browser', 'open-data-dir', 'close-window', 'route:settings', 'quit']);
  });

  it('offers each command once per platform', () => {
    for (const platform of ['darwin', 'linux', 'win32'] as const) {
      const commands = menuCommands(menuModel({ platform, appName: 'AEP Companion', devTools: true }));
      expect(new Set(commands).size).toBe(commands.length);
      expect(commands).toEqual(expect.arrayContaining(['route:sessions', 'route:inbox', 'route:audit', 'route:settings', 'route:setup', 'quick-instruct', 'quit']));
    }
  });

  it('keeps the standard editing roles so copy and paste work in the composer', () => {
    expect(roles(submenu(menuModel({ platform: 'win32', appName: 'x', devTools: false }), 'Edit'))).toEqual(['undo', 'redo', 'cut', 'copy', 'paste', 'selectAll']);
  });

  it('shows developer tools only when asked (unpackaged builds)', () => {
    expect(roles(submenu(menuModel({ platform: 'linux', appName: 'x', devTools: false }), 'View'))).not.toContain('toggleDevTools');
    expect(roles(submenu(menuModel({ platform: 'linux', appName: 'x', devTools: true }), 'View'))).toContain('toggleDevTools');
  });

  it('gives the view commands distinct accelerators', () => {
    const view = submenu(menuModel({ platform: 'linux', appName: 'x', devTools: false }), 'View');
    const accelerators = view.flatMap((n) => (n.kind === 'command' && n.accelerator ? [n.accelerator] : []));
    expect(accelerators).toEqual(['CmdOrCtrl+1', 'CmdOrCtrl+2', 'CmdOrCtrl+3']);
  });
});
