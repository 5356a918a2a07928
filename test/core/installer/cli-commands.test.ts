// Tests main/cli/commands/{install,uninstall,doctor}.ts in-process, with HOME pointed at a temp directory.
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { run as doctor } from '../../../main/cli/commands/doctor';
import { run as install } from '../../../main/cli/commands/install';
import { run as uninstallCommand } from '../../../main/cli/commands/uninstall';
import { deadUrl } from './fake-daemon';
import { fixture, makeTestEnv, put, textOrNull, type TestEnv } from './installer-test-env';

let t: TestEnv;
let out = '';
let errOut = '';

beforeEach(async () => {
  t = await makeTestEnv();
  vi.stubEnv('HOME', t.env.home);
  for (const name of [
    'CLAUDE_CONFIG_DIR',
    'CODEX_HOME',
    'QWEN_HOME',
    'HERMES_HOME',
    'AEP_COMPANION_DATA_DIR',
    'AEP_HOOK_TOKEN',
  ])
    vi.stubEnv(name, '');
  vi.stubEnv('AEP_COMPANION_URL', await deadUrl());
  // Never let a command reach the real home directory.
  expect(homedir()).toBe(t.env.home);
  out = '';
  errOut = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => ((out += String(chunk)), true));
  vi.spyOn(process.stderr, 'write').mockImplementation(
    (chunk) => ((errOut += String(chunk)), true),
  );
});
afterEach(async () => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
  await t.cleanup();
});

describe('aep-companion install / uninstall / doctor', () => {
  it('--dry-run prints the diff and writes nothing', async () => {
    const code = await install([
      '--vendor',
      'codex',
      '--instruct',
      '--dry-run',
      '--data-dir',
      t.env.dataDir,
    ]);
    expect(code).toBe(0);
    expect(out).toContain(`+++ ${join(t.env.home, '.codex', 'hooks.json')}`);
    expect(out).toContain('AEP_INSTRUCT=1');
    expect(out).toMatch(/trust them again/);
    expect(await textOrNull(join(t.env.home, '.codex', 'hooks.json'))).toBeNull();
  });

  it('installs, re-installs with nothing to change, and uninstalls back to the original', async () => {
    const path = join(t.env.home, '.claude', 'settings.json');
    const original = await fixture('claude-code/settings-with-hooks.json');
    await put(path, original);
    expect(
      await install([
        '--vendor',
        'claude-code',
        '--transport',
        'command',
        '--data-dir',
        t.env.dataDir,
      ]),
    ).toBe(0);
    expect(await textOrNull(path)).toContain('aep-companion-hook claude-code');
    out = '';
    expect(
      await install([
        '--vendor',
        'claude-code',
        '--transport',
        'command',
        '--data-dir',
        t.env.dataDir,
      ]),
    ).toBe(0);
    expect(out).toContain('nothing to change');
    expect(await uninstallCommand(['--vendor', 'claude-code', '--data-dir', t.env.dataDir])).toBe(
      0,
    );
    expect(await textOrNull(path)).toBe(original);
  });

  it('writes project scope for a relative --project', async () => {
    const project = join(t.root, 'proj');
    await put(join(project, 'x'), '');
    vi.spyOn(process, 'cwd').mockReturnValue(t.root);
    expect(
      await install(['--vendor', 'vscode', '--project', 'proj', '--data-dir', t.env.dataDir]),
    ).toBe(0);
    expect(await textOrNull(join(project, '.github', 'hooks', 'aep-companion.json'))).toContain(
      'aep-companion-hook vscode',
    );
  });

  it('exits non-zero with a clear message on bad arguments and corrupt configs', async () => {
    expect(await install(['--vendor', 'emacs'])).toBe(2);
    expect(errOut).toContain('--vendor must be one of');
    expect(await install(['--vendor', 'codex', '--bogus'])).toBe(2);
    expect(await install(['--vendor', 'codex', '--scope', 'project'])).toBe(2);
    expect(await install(['--vendor', 'codex', '--transport', 'pigeon'])).toBe(2);
    const path = join(t.env.home, '.qwen', 'settings.json');
    await put(path, '{ "hooks": ');
    errOut = '';
    expect(await install(['--vendor', 'qwen-code', '--data-dir', t.env.dataDir])).toBe(1);
    expect(errOut).toContain('is not valid JSON');
    expect(await textOrNull(path)).toBe('{ "hooks": ');
    expect(
      await uninstallCommand([
        '--vendor',
        'hermes',
        '--scope',
        'project',
        '--project',
        t.root,
        '--data-dir',
        t.env.dataDir,
      ]),
    ).toBe(1);
  });

  it('doctor exits 1 and names the remedy when the daemon is not running', async () => {
    expect(await install(['--vendor', 'codex', '--data-dir', t.env.dataDir])).toBe(0);
    out = '';
    expect(await doctor(['--vendor', 'codex', '--data-dir', t.env.dataDir])).toBe(1);
    expect(out).toMatch(/FAIL daemon-health/);
    expect(out).toContain('→ Start AEP Companion');
    out = '';
    expect(await doctor(['--json', '--data-dir', t.env.dataDir])).toBe(1);
    expect(JSON.parse(out)[0]).toMatchObject({ check: 'daemon-health', ok: false });
  });
});
