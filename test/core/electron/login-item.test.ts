import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyLinuxAutostart, autostartEntry, autostartFile, loginItemSettings } from '../../../main/electron/login-item';

describe('start at login', () => {
  let dir: string | undefined;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = undefined;
  });

  it('asks the OS to start the app hidden in the tray', () => {
    expect(loginItemSettings(true)).toEqual({ openAtLogin: true, args: ['--hidden'] });
    expect(loginItemSettings(false, '/repo')).toEqual({ openAtLogin: false, args: ['/repo', '--hidden'] });
  });

  it('writes an XDG autostart entry with a quoted command, and removes it when turned off', () => {
    dir = mkdtempSync(join(tmpdir(), 'aep-login-'));
    applyLinuxAutostart(dir, true, ['/home/u/Apps/AEP Companion.AppImage']);
    const file = autostartFile(dir);
    const text = readFileSync(file, 'utf8');
    expect(text).toContain('[Desktop Entry]');
    expect(text).toContain('Exec="/home/u/Apps/AEP Companion.AppImage" --hidden');
    applyLinuxAutostart(dir, false, ['/x']);
    expect(existsSync(file)).toBe(false);
    // Turning off what was never on is fine.
    applyLinuxAutostart(dir, false, ['/x']);
  });

  it('escapes characters the Exec key treats specially', () => {
    expect(autostartEntry(['/opt/a"b$c'])).toContain('Exec="/opt/a\\"b\\$c" --hidden');
    expect(autostartEntry(['/usr/bin/electron', '/repo'])).toContain('Exec=/usr/bin/electron /repo --hidden');
  });
});
