import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InstallOptions } from '../../../../common/api';
import { applyInstall, planInstall, uninstall } from '../../../../main/core/installer';
import {
  fixture,
  makeTestEnv,
  put,
  roundTrip,
  textOrNull,
  unwrap,
  type TestEnv,
} from '../../installer/installer-test-env';

const base: InstallOptions = {
  vendor: 'codex',
  scope: 'user',
  instruct: false,
  permissions: false,
};
let t: TestEnv;
beforeEach(async () => {
  t = await makeTestEnv();
});
afterEach(async () => {
  await t.cleanup();
});

type HooksFile = {
  hooks: Record<
    string,
    Array<{ matcher?: string; hooks: Array<{ type: string; command: string; timeout?: number }> }>
  >;
};

describe('codex installer', () => {
  it('appends command hooks after the user groups, so positional trust keys do not shift', async () => {
    const original = await fixture('codex/hooks.json');
    const path = join(t.env.home, '.codex', 'hooks.json');
    const { installed, plan } = await roundTrip(t, { ...base, instruct: true }, path, original);
    const file = JSON.parse(installed) as HooksFile;
    const before = JSON.parse(original) as HooksFile;
    expect(file.hooks.PreToolUse[0]).toEqual(before.hooks.PreToolUse[0]);
    expect(file.hooks.Stop[0]).toEqual(before.hooks.Stop[0]);
    expect(file.hooks.PreToolUse[1].hooks[0]).toEqual({
      type: 'command',
      command: `AEP_INSTRUCT=1 ${join(t.env.dataDir, 'bin', 'aep-companion-hook')} codex`,
      timeout: 10,
    });
    expect(Object.keys(file)).toEqual(['hooks']);
    expect(plan.retrustRequired).toBe(true);
    expect(plan.warnings.join('\n')).toContain('/hooks');
  });

  it('honours CODEX_HOME and creates the folder when missing', async () => {
    const codexHome = join(t.root, 'codex-home');
    t = { ...t, env: { ...t.env, vars: { CODEX_HOME: codexHome } } };
    await roundTrip(t, base, join(codexHome, 'hooks.json'), null);
    await expect(access(codexHome)).rejects.toThrow();
  });

  it('writes project scope to <project>/.codex/hooks.json', async () => {
    const project = join(t.root, 'repo');
    await put(join(project, '.git', 'HEAD'), 'ref: refs/heads/main\n');
    await roundTrip(
      t,
      { ...base, scope: 'project', project },
      join(project, '.codex', 'hooks.json'),
      null,
    );
  });

  it('says the vendor will ask for trust again when the opt-in changes the command, and not on a no-op', async () => {
    unwrap(await applyInstall(base, t.env));
    const same = unwrap(await planInstall(base, t.env));
    expect(same.retrustRequired).toBe(false);
    const toggled = unwrap(await planInstall({ ...base, permissions: true }, t.env));
    expect(toggled.retrustRequired).toBe(true);
    expect(toggled.warnings[0]).toMatch(/trust them again/);
  });

  it('keeps our entries in place when toggling, even when the user appended a group after ours', async () => {
    const path = join(t.env.home, '.codex', 'hooks.json');
    unwrap(await applyInstall(base, t.env));
    const file = JSON.parse((await textOrNull(path)) as string) as HooksFile;
    file.hooks.Stop.push({ hooks: [{ type: 'command', command: 'echo mine' }] });
    await put(path, JSON.stringify(file, null, 2));
    unwrap(await applyInstall({ ...base, instruct: true }, t.env));
    const toggled = JSON.parse((await textOrNull(path)) as string) as HooksFile;
    expect(toggled.hooks.Stop[0].hooks[0].command).toContain('AEP_INSTRUCT=1');
    expect(toggled.hooks.Stop[1].hooks[0].command).toBe('echo mine');
    unwrap(await uninstall({ vendor: 'codex', scope: 'user' }, t.env));
    const after = JSON.parse((await textOrNull(path)) as string) as HooksFile;
    expect(after.hooks).toEqual({ Stop: [{ hooks: [{ type: 'command', command: 'echo mine' }] }] });
  });

  it('warns when config.toml turns hooks off or keeps hooks in a second representation', async () => {
    await put(
      join(t.env.home, '.codex', 'config.toml'),
      await fixture('codex/config-hooks-off.toml'),
    );
    const off = unwrap(await planInstall(base, t.env));
    expect(off.warnings.join('\n')).toMatch(/turns hooks off/);
    await put(
      join(t.env.home, '.codex', 'config.toml'),
      await fixture('codex/config-inline-hooks.toml'),
    );
    const dual = unwrap(await planInstall(base, t.env));
    expect(dual.warnings.join('\n')).toMatch(/single representation/);
    expect(dual.changes.map((c) => c.path)).not.toContain(
      join(t.env.home, '.codex', 'config.toml'),
    );
  });

  it('refuses a corrupt hooks.json and leaves it untouched', async () => {
    const path = join(t.env.home, '.codex', 'hooks.json');
    await put(path, '{"hooks": {"Stop": [}');
    const applied = await applyInstall(base, t.env);
    expect(applied.ok ? 'ok' : applied.error.code).toBe('corrupt-config');
    expect(await textOrNull(path)).toBe('{"hooks": {"Stop": [}');
  });

  it('offers only the command transport', async () => {
    const planned = await planInstall({ ...base, transport: 'http' }, t.env);
    expect(planned.ok ? 'ok' : planned.error.code).toBe('unsupported-transport');
  });
});
