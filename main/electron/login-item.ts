/**
 * Start at login ('app.startAtLogin'). macOS and Windows have a login-item API in Electron; Linux
 * desktops follow the XDG autostart convention instead: a .desktop file in ~/.config/autostart.
 * Either way the app starts with --hidden, straight into the tray.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** The flag a login launch carries. */
export const LOGIN_ARGS = ['--hidden'] as const;

/**
 * Arguments for Electron's app.setLoginItemSettings (macOS, Windows). An unpackaged app runs as
 * `electron <appPath>`, so the app path leads the arguments there.
 */
export function loginItemSettings(enabled: boolean, unpackagedAppPath?: string): { openAtLogin: boolean; args: string[] } {
  return { openAtLogin: enabled, args: [...(unpackagedAppPath !== undefined ? [unpackagedAppPath] : []), ...LOGIN_ARGS] };
}

const quoteExec = (arg: string): string => (/^[A-Za-z0-9_./=-]+$/.test(arg) ? arg : `"${arg.replace(/(["`$\\])/g, '\\$1')}"`);

/** The XDG autostart entry that launches `command` (the executable or the AppImage file, then its arguments) hidden. */
export function autostartEntry(command: readonly string[]): string {
  return [
    '[Desktop Entry]',
    'Type=Application',
    'Name=AEP Companion',
    'Comment=Watch and steer AI coding agent sessions',
    `Exec=${[...command, ...LOGIN_ARGS].map(quoteExec).join(' ')}`,
    'Terminal=false',
    'X-GNOME-Autostart-enabled=true',
    '',
  ].join('\n');
}

/** The autostart file inside an XDG config directory. */
export const autostartFile = (configHome: string): string => join(configHome, 'autostart', 'aep-companion.desktop');

/** Writes or removes the Linux autostart entry. */
export function applyLinuxAutostart(configHome: string, enabled: boolean, command: readonly string[]): void {
  const file = autostartFile(configHome);
  if (!enabled) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(join(configHome, 'autostart'), { recursive: true });
  writeFileSync(file, autostartEntry(command));
}
