import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { appPaths } from '../../../main/electron/app-paths';

const repo = fileURLToPath(new URL('../../..', import.meta.url));

/** Width and height from a PNG's IHDR chunk. */
function pngSize(file: string): { width: number; height: number } {
  const buf = readFileSync(file);
  expect(buf.subarray(1, 4).toString('ascii')).toBe('PNG');
  return { width: buf.readUInt32BE(16), height: buf.readUInt32BE(20) };
}

describe('app paths', () => {
  it('finds the preload and console under out/, and every tray icon with its @2x twin, in development', () => {
    for (const platform of ['linux', 'darwin', 'win32'] as const) {
      const paths = appPaths({ appPath: repo, resourcesPath: '/nowhere', packaged: false, platform });
      expect(paths.preload).toBe(join(repo, 'out', 'preload', 'index.cjs'));
      expect(paths.consoleDir).toBe(join(repo, 'out', 'renderer'));
      expect(pngSize(paths.appIcon)).toEqual({ width: 512, height: 512 });
      const base = platform === 'linux' ? 32 : 16;
      for (const name of ['idle', 'active', 'attention'] as const) {
        const icon = paths.trayIcon(name);
        expect(existsSync(icon)).toBe(true);
        expect(pngSize(icon)).toEqual({ width: base, height: base });
        expect(pngSize(icon.replace(/\.png$/, '@2x.png'))).toEqual({ width: base * 2, height: base * 2 });
      }
    }
  });

  it('reads icons from the resources folder when packaged (electron-builder extraResources)', () => {
    const paths = appPaths({ appPath: '/opt/AEP Companion/resources/app.asar', resourcesPath: '/opt/AEP Companion/resources', packaged: true, platform: 'linux' });
    expect(paths.trayIcon('attention')).toBe('/opt/AEP Companion/resources/tray/attention-32.png');
    expect(paths.appIcon).toBe('/opt/AEP Companion/resources/icon.png');
    expect(paths.preload).toBe('/opt/AEP Companion/resources/app.asar/out/preload/index.cjs');
  });
});
