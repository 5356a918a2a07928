import { parse } from 'jsonc-parser';
import { access, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InstallOptions } from '../../../../common/api';
import { applyInstall, planInstall, uninstall } from '../../../../main/core/installer';
import {
  FIXTURES,
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
  vendor: 'claude-code',
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
  hooks: Record<string, Array<{ matcher?: string; hooks: Array<Record<string, unknown>> }>>;
} & Record<string, unknown>;

describe('claude-code installer', () => {
  it('round-trips a settings file with user hooks, keeping them and every other setting', async () => {
    const original = await fixture('claude-code/settings-with-hooks.json');
    const path = join(t.env.home, '.claude', 'settings.json');
    const { installed } = await roundTrip(t, { ...base, instruct: true }, path, original);
    const settings = parse(installed) as Settings;
    const before = parse(original) as Settings;
    expect(settings.permissions).toEqual(before.permissions);
    expect(settings.statusLine).toEqual(before.statusLine);
    // The user's groups stay first and intact; ours are appended after them.
    expect(settings.hooks.PreToolUse[0]).toEqual(before.hooks.PreToolUse[0]);
    expect(settings.hooks.Stop[0]).toEqual(before.hooks.Stop[0]);
    expect(settings.hooks.PreToolUse[1].hooks[0]).toMatchObject({
      type: 'http',
      url: 'http://127.0.0.1:8787/hooks/claude-code?instruct=1',
    });
    expect(installed).toContain('\n    "statusLine"'); // the file's 4-space indentation is kept
  });

  it('uses HTTP hooks with the token by reference, and the launcher on SessionStart only', async () => {
    const path = join(t.env.home, '.claude', 'settings.json');
    const { installed } = await roundTrip(t, base, path, null);
    const hooks = (parse(installed) as Settings).hooks;
    const token = 'secret-hook-token-value';
    await put(join(t.env.dataDir, 'hook-token'), token);
    expect(installed).not.toContain(token);
    expect(hooks.SessionStart[0].hooks[0]).toEqual({
      type: 'command',
      command: `${join(t.env.dataDir, 'bin', 'aep-companion-hook')} claude-code`,
      timeout: 10,
    });
    expect(hooks.PreToolUse[0].hooks[0]).toEqual({
      type: 'http',
      url: 'http://127.0.0.1:8787/hooks/claude-code',
      headers: { Authorization: 'Bearer $AEP_HOOK_TOKEN' },
      allowedEnvVars: ['AEP_HOOK_TOKEN'],
      timeout: 10,
    });
    expect(hooks.SessionEnd[0].hooks[0].timeout).toBe(5);
    for (const event of Object.values(hooks))
      expect(event[0].hooks[0].timeout).toBeLessThanOrEqual(10);
  });

  it('creates the missing config directory and removes it again at uninstall', async () => {
    const dir = join(t.env.home, '.claude');
    await roundTrip(t, base, join(dir, 'settings.json'), null);
    await expect(access(dir)).rejects.toThrow();
  });

  it('keeps comments, trailing commas and a tab/CRLF layout', async () => {
    const comments = await fixture('claude-code/settings-comments.json');
    const path = join(t.env.home, '.claude', 'settings.json');
    const { installed } = await roundTrip(t, base, path, comments);
    expect(installed).toContain('// lint after every edit');
    expect(installed).toContain('/* tools I always allow */');

    const tabs = await fixture('claude-code/settings-tabs-crlf.json');
    const second = await roundTrip(t, base, path, tabs);
    expect(second.installed).toContain('\r\n\t"hooks"');
    expect(second.installed.replace(/\r\n/g, '')).not.toContain('\n');
  });

  it('round-trips an empty file', async () => {
    await roundTrip(t, base, join(t.env.home, '.claude', 'settings.json'), '');
  });

  it('honours CLAUDE_CONFIG_DIR', async () => {
    const relocated = join(t.root, 'claude-elsewhere');
    t = { ...t, env: { ...t.env, vars: { CLAUDE_CONFIG_DIR: relocated } } };
    await roundTrip(t, base, join(relocated, 'settings.json'), '{}\n');
    expect(await textOrNull(join(t.env.home, '.claude', 'settings.json'))).toBeNull();
  });

  it('writes project scope to .claude/settings.local.json', async () => {
    const project = join(t.root, 'project');
    await put(join(project, 'README.md'), '# p\n');
    await roundTrip(
      t,
      { ...base, scope: 'project', project },
      join(project, '.claude', 'settings.local.json'),
      null,
    );
  });

  it('uses only the launcher with --transport command, the opt-ins as a variable prefix', async () => {
    const path = join(t.env.home, '.claude', 'settings.json');
    const { installed } = await roundTrip(
      t,
      { ...base, transport: 'command', instruct: true, permissions: true },
      path,
      null,
    );
    const hooks = (parse(installed) as Settings).hooks;
    for (const groups of Object.values(hooks)) expect(groups[0].hooks[0].type).toBe('command');
    expect(hooks.Stop[0].hooks[0].command).toBe(
      `AEP_INSTRUCT=1 AEP_PERMISSIONS=1 ${join(t.env.dataDir, 'bin', 'aep-companion-hook')} claude-code`,
    );
    expect(hooks.PermissionRequest[0].hooks[0].timeout).toBe(120);
  });

  it('toggles the steering opt-in in place without duplicating entries', async () => {
    const path = join(t.env.home, '.claude', 'settings.json');
    const original = await fixture('claude-code/settings-with-hooks.json');
    await put(path, original);
    unwrap(await applyInstall(base, t.env));
    const toggled = unwrap(await applyInstall({ ...base, instruct: true }, t.env));
    expect(toggled.changes.map((c) => c.path)).toEqual([path]);
    const settings = parse((await textOrNull(path)) as string) as Settings;
    expect(settings.hooks.PreToolUse).toHaveLength(2);
    expect(settings.hooks.PreToolUse[1].hooks[0].url).toBe(
      'http://127.0.0.1:8787/hooks/claude-code?instruct=1',
    );
    expect(toggled.retrustRequired).toBe(false);
    unwrap(await uninstall({ vendor: 'claude-code', scope: 'user' }, t.env));
    expect(await textOrNull(path)).toBe(original);
  });

  it('removes only our entries when the user edited the file after install', async () => {
    const path = join(t.env.home, '.claude', 'settings.json');
    await put(path, await fixture('claude-code/settings-with-hooks.json'));
    unwrap(await applyInstall(base, t.env));
    const edited = ((await textOrNull(path)) as string).replace(
      '"model": "opus"',
      '"model": "sonnet"',
    );
    await put(path, edited);
    unwrap(await uninstall({ vendor: 'claude-code', scope: 'user' }, t.env));
    // Exactly our entries are gone: every other byte, including the user's edit, stays.
    const original = await fixture('claude-code/settings-with-hooks.json');
    expect(await textOrNull(path)).toBe(original.replace('"model": "opus"', '"model": "sonnet"'));
  });

  it('refuses a corrupt settings file and leaves it untouched', async () => {
    const path = join(t.env.home, '.claude', 'settings.json');
    const corrupt = await fixture('claude-code/settings-corrupt.json');
    await put(path, corrupt);
    const planned = await planInstall(base, t.env);
    expect(planned.ok).toBe(false);
    if (!planned.ok) {
      expect(planned.error.code).toBe('corrupt-config');
      expect(planned.error.message).toContain(path);
      expect(planned.error.message).toMatch(/line \d+/);
    }
    const applied = await applyInstall(base, t.env);
    expect(applied.ok).toBe(false);
    expect(await readFile(path, 'utf8')).toBe(corrupt);
    expect(t.audit.at(-1)).toMatchObject({
      action: 'installer.apply',
      outcome: 'error',
      surface: 'cli',
    });
  });

  it('refuses a settings file whose hooks are not an object', async () => {
    const path = join(t.env.home, '.claude', 'settings.json');
    const odd = await fixture('claude-code/settings-hooks-not-object.json');
    await put(path, odd);
    const applied = await applyInstall(base, t.env);
    expect(applied.ok ? 'ok' : applied.error.code).toBe('unexpected-shape');
    expect(await readFile(path, 'utf8')).toBe(odd);
  });

  it('warns about VS Code attribution, the token variable and an enterprise hook policy', async () => {
    const plan = unwrap(
      await planInstall(base, {
        ...t.env,
        managedPolicyFiles: {
          'claude-code': [join(FIXTURES, 'claude-code', 'managed-settings.json')],
        },
      }),
    );
    const text = plan.warnings.join('\n');
    expect(text).toMatch(/VS Code agent also reads ~\/\.claude\/settings\.json/);
    expect(text).toContain('AEP_HOOK_TOKEN');
    expect(text).toContain('allowManagedHooksOnly');
    expect(text).toContain('allowedHttpHookUrls');
    expect(plan.retrustRequired).toBe(false);
  });

  it('audits every write with actor and surface', async () => {
    unwrap(await applyInstall(base, t.env));
    unwrap(await uninstall({ vendor: 'claude-code', scope: 'user' }, t.env));
    expect(t.audit.map((r) => [r.action, r.outcome, r.surface, r.actor])).toEqual([
      ['installer.apply', 'ok', 'cli', 'operator'],
      ['installer.uninstall', 'ok', 'cli', 'operator'],
    ]);
    expect(t.audit[0].detail).toMatchObject({ vendor: 'claude-code', transport: 'http' });
  });
});
