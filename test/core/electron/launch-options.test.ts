import { describe, expect, it } from 'vitest';
import { parseLaunchOptions } from '../../../main/electron/launch-options';

const parse = (argv: string[], env: Record<string, string> = {}) => parseLaunchOptions(argv, '/home/u/work', env);

describe('launch options', () => {
  it('defaults to the per-user data dir, the default port, the wizard on and a visible window', () => {
    expect(parse(['/opt/aep/aep-companion'])).toEqual({ ok: true, value: { dataDir: null, port: null, skipWizard: false, hidden: false } });
  });

  it('reads --data-dir, --port, --skip-wizard and --hidden in both spellings', () => {
    expect(parse(['/usr/bin/electron', '/repo', '--data-dir', '/tmp/d', '--port', '0', '--skip-wizard', '--hidden'])).toEqual({
      ok: true,
      value: { dataDir: '/tmp/d', port: 0, skipWizard: true, hidden: true },
    });
    expect(parse(['--data-dir=/tmp/e', '--port=9001'])).toMatchObject({ ok: true, value: { dataDir: '/tmp/e', port: 9001 } });
  });

  it('resolves a relative data dir against the launch directory', () => {
    expect(parse(['--data-dir', 'data'])).toMatchObject({ value: { dataDir: '/home/u/work/data' } });
  });

  it('ignores the switches Electron, Chromium and Playwright add', () => {
    expect(parse(['--no-sandbox', '--remote-debugging-port=0', '--inspect=0', '--enable-logging', '--port', '8790'])).toEqual({
      ok: true,
      value: { dataDir: null, port: 8790, skipWizard: false, hidden: false },
    });
  });

  it('refuses malformed values instead of falling back silently', () => {
    expect(parse(['--port', '70000'])).toEqual({ ok: false, error: '--port must be an integer from 0 to 65535' });
    expect(parse(['--port', 'abc'])).toMatchObject({ ok: false });
    expect(parse(['--port=-1'])).toMatchObject({ ok: false });
    expect(parse(['--port'])).toEqual({ ok: false, error: '--port needs a value' });
    expect(parse(['--data-dir', '--hidden'])).toEqual({ ok: false, error: '--data-dir needs a value' });
    expect(parse(['--data-dir='])).toEqual({ ok: false, error: '--data-dir needs a value' });
    expect(parse(['--hidden=yes'])).toEqual({ ok: false, error: '--hidden takes no value' });
  });

  it('takes AEP_COMPANION_DATA_DIR like the CLI does, with --data-dir winning', () => {
    expect(parse([], { AEP_COMPANION_DATA_DIR: '/srv/aep' })).toMatchObject({ value: { dataDir: '/srv/aep' } });
    expect(parse(['--data-dir', '/tmp/x'], { AEP_COMPANION_DATA_DIR: '/srv/aep' })).toMatchObject({ value: { dataDir: '/tmp/x' } });
  });
});
