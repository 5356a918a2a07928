/**
 * Where the shell finds its files, the same in development (the repository) and when packaged
 * (app.asar, with the tray icons copied next to it as extra resources by electron-builder.yml).
 */
import { join } from 'node:path';
import type { TrayIconName } from './tray-items';

/** The inputs: Electron's app path and resources path, and whether the app is packaged. */
export interface AppPathInput {
  readonly appPath: string;
  readonly resourcesPath: string;
  readonly packaged: boolean;
  readonly platform: NodeJS.Platform;
}

/** The files the shell loads. */
export interface AppPaths {
  /** The preload bundle (one CJS file). */
  readonly preload: string;
  /** The built console the daemon serves. */
  readonly consoleDir: string;
  /** The window and notification icon. */
  readonly appIcon: string;
  /** The tray icon for a status. */
  trayIcon(name: TrayIconName): string;
}

/** The per-user data directory the CLI and `serve` also use (main/cli/locate-daemon.ts), under Electron's appData. */
export const dataDirName = 'aep-companion';

/** Resolves the shell's paths. */
export function appPaths(input: AppPathInput): AppPaths {
  const resources = input.packaged ? input.resourcesPath : join(input.appPath, 'resources');
  // Linux panels draw tray icons at 22–32 px; macOS and Windows at 16 pt, with @2x picked automatically.
  const suffix = input.platform === 'linux' ? '-32' : '';
  return {
    preload: join(input.appPath, 'out', 'preload', 'index.cjs'),
    consoleDir: join(input.appPath, 'out', 'renderer'),
    appIcon: join(resources, 'icon.png'),
    trayIcon: (name) => join(resources, 'tray', `${name}${suffix}.png`),
  };
}
