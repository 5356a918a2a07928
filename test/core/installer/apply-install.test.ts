import { lstat, readlink, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InstallOptions } from '../../../common/api';
import { applyInstall, launcherPath, readManifest, uninstall } from '../../../main/core/installer';
import {
  backupTexts,
  fixture,
  makeTestEnv,
  put,
  textOrNull,
  unwrap,
  type TestEnv,
} from './installer-test-env';

let t: TestEnv;
beforeEach(async () => {
  t = await makeTestEnv();
});
afterEach(async () => {
  await t.cleanup();
});

const codex: InstallOptions = {
  vendor: 'codex',
  scope: 'user',
  instruct: false,
  permissions: false,
};

describe('apply', () => {
  it('writes through a symlinked config inside the home directory and keeps the link', async () => {
    const real = join(t.env.home, 'dotfiles', 'codex-hooks.json');
    const original = await fixture('codex/hooks.json');
    await put(real, original);
    const link = join(t.env.home, '.codex', 'hooks.json');
    await put(join(t.env.home, '.codex', '.keep'), '');
    await symlink(real, link);
    unwrap(await applyInstall(codex, t.env));
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    expect(await readlink(link)).toBe(real);
    expect(await textOrNull(real)).toContain('aep-companion-hook');
    unwrap(await uninstall({ vendor: 'codex', scope: 'user' }, t.env));
    expect(await textOrNull(real)).toBe(original);
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
  });

  it('records in the manifest exactly which file, events and options were written', async () => {
    unwrap(await applyInstall({ ...codex, instruct: true }, t.env));
    const manifest = unwrap(await readManifest(t.env));
    expect(manifest.installs).toHaveLength(1);
    expect(manifest.installs[0]).toMatchObject({
      vendor: 'codex',
      scope: 'user',
      project: null,
      instruct: true,
      permissions: false,
      transport: 'command',
      daemonUrl: t.env.daemonUrl,
    });
    expect(manifest.installs[0].files[0]).toMatchObject({
      path: join(t.env.home, '.codex', 'hooks.json'),
      createdDirs: [join(t.env.home, '.codex')],
      base: { backup: null, sha256: null },
      events: [
        'SessionStart',
        'UserPromptSubmit',
        'PreToolUse',
        'PermissionRequest',
        'PostToolUse',
        'Stop',
      ],
    });
    expect(manifest.shim?.paths).toEqual([
      join(t.env.dataDir, 'bin', 'aep-companion-hook.cjs'),
      launcherPath(t.env),
      join(t.env.dataDir, 'bin', 'aep-companion-hook.bash'),
    ]);
  });
});

describe('apply backups', () => {
  it('backs up the file before every change, including a toggle', async () => {
    const path = join(t.env.home, '.codex', 'hooks.json');
    const original = await fixture('codex/hooks.json');
    await put(path, original);
    unwrap(await applyInstall(codex, t.env));
    const first = await textOrNull(path);
    unwrap(await applyInstall({ ...codex, instruct: true }, t.env));
    const backups = await backupTexts(t.env);
    expect(backups).toContain(original);
    expect(backups).toContain(first);
  });
});
