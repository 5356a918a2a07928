import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InstallOptions } from '../../../common/api';
import {
  applyInstall,
  launcherPath,
  planUninstall,
  readManifest,
  uninstall,
} from '../../../main/core/installer';
import { fixture, makeTestEnv, put, textOrNull, unwrap, type TestEnv } from './installer-test-env';

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
const hermes: InstallOptions = {
  vendor: 'hermes',
  scope: 'user',
  instruct: false,
  permissions: false,
};

describe('uninstall', () => {
  it('keeps the shared launcher while another vendor still uses it, and removes it with the last one', async () => {
    unwrap(await applyInstall(codex, t.env));
    unwrap(await applyInstall(hermes, t.env));
    unwrap(await uninstall({ vendor: 'codex', scope: 'user' }, t.env));
    await expect(access(launcherPath(t.env))).resolves.toBeUndefined();
    const last = unwrap(await uninstall({ vendor: 'hermes', scope: 'user' }, t.env));
    expect(last.changes.map((c) => c.path)).toContain(launcherPath(t.env));
    await expect(access(launcherPath(t.env))).rejects.toThrow();
    await expect(access(join(t.env.dataDir, 'bin'))).rejects.toThrow();
    expect(unwrap(await readManifest(t.env))).toEqual({ version: 1, installs: [], shim: null });
  });

  it('is a no-op with a note when nothing of ours is installed', async () => {
    const path = join(t.env.home, '.codex', 'hooks.json');
    const original = await fixture('codex/hooks.json');
    await put(path, original);
    const plan = unwrap(await uninstall({ vendor: 'codex', scope: 'user' }, t.env));
    expect(plan.changes).toEqual([]);
    expect(plan.warnings[0]).toContain('no AEP Companion hooks were found');
    expect(await textOrNull(path)).toBe(original);
  });

  it('removes entries of ours found by marker even without a manifest record', async () => {
    const path = join(t.env.home, '.codex', 'hooks.json');
    const original = await fixture('codex/hooks.json');
    await put(path, original);
    unwrap(await applyInstall(codex, t.env));
    await put(
      join(t.env.dataDir, 'installer', 'manifest.json'),
      '{"version":1,"installs":[],"shim":null}',
    );
    unwrap(await uninstall({ vendor: 'codex', scope: 'user' }, t.env));
    expect(await textOrNull(path)).toBe(original);
  });

  it('previews without writing', async () => {
    unwrap(await applyInstall(codex, t.env));
    const path = join(t.env.home, '.codex', 'hooks.json');
    const installed = await textOrNull(path);
    const plan = unwrap(await planUninstall({ vendor: 'codex', scope: 'user' }, t.env));
    expect(plan.changes.find((c) => c.path === path)?.after).toBeNull();
    expect(await textOrNull(path)).toBe(installed);
  });

  it('refuses to touch a config that became corrupt, and keeps the install recorded', async () => {
    unwrap(await applyInstall(codex, t.env));
    const path = join(t.env.home, '.codex', 'hooks.json');
    await put(path, '{ "hooks": [');
    const refused = await uninstall({ vendor: 'codex', scope: 'user' }, t.env);
    expect(refused.ok ? 'ok' : refused.error.code).toBe('corrupt-config');
    expect(await textOrNull(path)).toBe('{ "hooks": [');
    expect(unwrap(await readManifest(t.env)).installs).toHaveLength(1);
  });

  it('refuses a corrupt manifest with a clear error instead of guessing', async () => {
    await put(join(t.env.dataDir, 'installer', 'manifest.json'), 'garbage');
    const refused = await uninstall({ vendor: 'codex', scope: 'user' }, t.env);
    expect(refused.ok ? 'ok' : refused.error.code).toBe('corrupt-manifest');
  });
});
