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

// Most cases here exercise the HTTP entries; the default (the launcher) has its own case.
const base: InstallOptions = {
  vendor: 'qwen-code',
  scope: 'user',
  instruct: false,
  permissions: false,
  transport: 'http',
};
let t: TestEnv;
beforeEach(async () => {
  t = await makeTestEnv();
});
afterEach(async () => {
  await t.cleanup();
});

type Settings = {
  hooks: Record<string, Array<{ hooks: Array<Record<string, unknown>> }>>;
} & Record<string, unknown>;

describe('qwen-code installer', () => {
  it('round-trips settings with a user hook and MCP servers, adding named HTTP hooks', async () => {
    const original = await fixture('qwen-code/settings.json');
    const path = join(t.env.home, '.qwen', 'settings.json');
    const { installed, plan } = await roundTrip(t, { ...base, instruct: true }, path, original);
    const settings = JSON.parse(installed) as Settings;
    const before = JSON.parse(original) as Settings;
    expect(settings.mcpServers).toEqual(before.mcpServers);
    expect(settings.hooks.PreToolUse[0]).toEqual(before.hooks.PreToolUse[0]);
    expect(settings.hooks.PreToolUse[1].hooks[0]).toEqual({
      type: 'http',
      name: 'aep-companion',
      url: 'http://127.0.0.1:8787/hooks/qwen-code?instruct=1',
      headers: { Authorization: 'Bearer ${AEP_HOOK_TOKEN}' },
      allowedEnvVars: ['AEP_HOOK_TOKEN'],
      timeout: 10,
    });
    // HTTP only: no launcher is written.
    expect(plan.changes.map((c) => c.path)).toEqual([path]);
    // The fixture's allow-list admits loopback URLs, so no allow-list warning.
    expect(plan.warnings.join('\n')).not.toContain('allowedHttpHookUrls');
  });

  it('uses the launcher with an env field and millisecond timeouts for the command transport', async () => {
    const path = join(t.env.home, '.qwen', 'settings.json');
    const { installed, plan } = await roundTrip(
      t,
      { ...base, transport: 'command', instruct: true, permissions: true },
      path,
      null,
    );
    const hooks = (JSON.parse(installed) as Settings).hooks;
    expect(hooks.Stop[0].hooks[0]).toEqual({
      type: 'command',
      name: 'aep-companion',
      command: `${join(t.env.dataDir, 'bin', 'aep-companion-hook')} qwen-code`,
      env: { AEP_INSTRUCT: '1', AEP_PERMISSIONS: '1' },
      timeout: 10_000,
    });
    expect(hooks.PermissionRequest[0].hooks[0].timeout).toBe(120_000);
    expect(plan.changes.map((c) => c.path)).toContain(
      join(t.env.dataDir, 'bin', 'aep-companion-hook'),
    );
  });

  it('honours QWEN_HOME', async () => {
    const qwenHome = join(t.root, 'qwen-home');
    t = { ...t, env: { ...t.env, vars: { QWEN_HOME: qwenHome } } };
    await roundTrip(t, base, join(qwenHome, 'settings.json'), '{}');
  });

  it('recognises our entries by name even after the URL changed', async () => {
    const path = join(t.env.home, '.qwen', 'settings.json');
    unwrap(await applyInstall(base, t.env));
    const moved = { ...t.env, daemonUrl: 'http://127.0.0.1:9999' };
    const plan = unwrap(await applyInstall(base, moved));
    expect(plan.changes.length).toBe(1);
    const settings = JSON.parse((await textOrNull(path)) as string) as Settings;
    expect(settings.hooks.Stop).toHaveLength(1);
    expect(settings.hooks.Stop[0].hooks[0].url).toBe('http://127.0.0.1:9999/hooks/qwen-code');
    unwrap(await uninstall({ vendor: 'qwen-code', scope: 'user' }, moved));
    expect(await textOrNull(path)).toBeNull();
  });

  it('warns when all hooks are disabled and about trusted folders for a project', async () => {
    await put(
      join(t.env.home, '.qwen', 'settings.json'),
      await fixture('qwen-code/settings-disabled.json'),
    );
    const user = unwrap(await planInstall(base, t.env));
    expect(user.warnings.join('\n')).toContain('disableAllHooks');
    const project = join(t.root, 'proj');
    await put(join(project, 'a.txt'), 'a');
    const proj = unwrap(await planInstall({ ...base, scope: 'project', project }, t.env));
    expect(proj.changes[0].path).toBe(join(project, '.qwen', 'settings.json'));
    expect(proj.warnings.join('\n')).toContain('trusted folder');
  });

  it('refuses a corrupt settings file and leaves it untouched', async () => {
    const path = join(t.env.home, '.qwen', 'settings.json');
    await put(path, '{ "hooks": ');
    const applied = await applyInstall(base, t.env);
    expect(applied.ok ? 'ok' : applied.error.code).toBe('corrupt-config');
    expect(await textOrNull(path)).toBe('{ "hooks": ');
  });
});
