import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InstallOptions } from '../../../../common/api';
import { applyInstall, planInstall } from '../../../../main/core/installer';
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
  vendor: 'vscode',
  scope: 'project',
  instruct: false,
  permissions: false,
};
let t: TestEnv;
let project: string;
beforeEach(async () => {
  t = await makeTestEnv();
  project = join(t.root, 'workspace');
  await put(join(project, 'package.json'), '{}\n');
});
afterEach(async () => {
  await t.cleanup();
});

type HookFile = {
  hooks: Record<
    string,
    Array<{ type: string; command: string; env?: Record<string, string>; timeout: number }>
  >;
};

describe('vscode installer', () => {
  it('writes its own flat hook file in .github/hooks and deletes it (and the folders it made) at uninstall', async () => {
    const path = join(project, '.github', 'hooks', 'aep-companion.json');
    const { installed } = await roundTrip(t, { ...base, project, instruct: true }, path, null);
    const file = JSON.parse(installed) as HookFile;
    expect(Object.keys(file.hooks)).toEqual([
      'SessionStart',
      'UserPromptSubmit',
      'PreToolUse',
      'PostToolUse',
      'PreCompact',
      'SubagentStart',
      'SubagentStop',
      'Stop',
    ]);
    expect(file.hooks.PreToolUse[0]).toEqual({
      type: 'command',
      command: `${join(t.env.dataDir, 'bin', 'aep-companion-hook')} vscode`,
      env: { AEP_INSTRUCT: '1' },
      timeout: 10,
    });
    await expect(access(join(project, '.github'))).rejects.toThrow();
  });

  it('keeps an existing .github folder and the other hook files in it', async () => {
    const other = join(project, '.github', 'hooks', 'team.json');
    await put(other, '{"hooks":{}}');
    await roundTrip(
      t,
      { ...base, project },
      join(project, '.github', 'hooks', 'aep-companion.json'),
      null,
    );
    expect(await textOrNull(other)).toBe('{"hooks":{}}');
  });

  it('installs for the user in ~/.copilot/hooks and says VS Code may need that folder enabled', async () => {
    const { plan } = await roundTrip(
      t,
      { ...base, scope: 'user' },
      join(t.env.home, '.copilot', 'hooks', 'aep-companion.json'),
      null,
    );
    expect(plan.warnings.join('\n')).toContain('chat.hookFilesLocations');
  });

  it('warns about attribution when Claude Code hooks of ours are in ~/.claude/settings.json, and about workspace trust', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'claude-code', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    const plan = unwrap(await planInstall({ ...base, project }, t.env));
    const text = plan.warnings.join('\n');
    expect(text).toMatch(/reported twice, once attributed to Claude Code/);
    expect(text).toMatch(/trusted workspace/);
  });

  it('raises the gated PreToolUse timeout only with the permission opt-in', async () => {
    unwrap(await applyInstall({ ...base, project, permissions: true }, t.env));
    const file = JSON.parse(
      (await textOrNull(join(project, '.github', 'hooks', 'aep-companion.json'))) as string,
    ) as HookFile;
    expect(file.hooks.PreToolUse[0].timeout).toBe(60);
    expect(file.hooks.PreToolUse[0].env).toEqual({ AEP_PERMISSIONS: '1' });
    expect(file.hooks.Stop[0].timeout).toBe(10);
  });

  it('refuses to overwrite a corrupt hook file of ours', async () => {
    const path = join(project, '.github', 'hooks', 'aep-companion.json');
    const corrupt = await fixture('vscode/aep-companion-corrupt.json');
    await put(path, corrupt);
    const applied = await applyInstall({ ...base, project }, t.env);
    expect(applied.ok ? 'ok' : applied.error.code).toBe('corrupt-config');
    expect(await textOrNull(path)).toBe(corrupt);
  });

  it('needs an existing absolute project directory for project scope', async () => {
    const missing = await planInstall({ ...base, project: join(t.root, 'nope') }, t.env);
    expect(missing.ok ? 'ok' : missing.error.code).toBe('missing-project');
    const relative = await planInstall({ ...base, project: 'workspace' }, t.env);
    expect(relative.ok ? 'ok' : relative.error.code).toBe('missing-project');
    const none = await planInstall(base, t.env);
    expect(none.ok ? 'ok' : none.error.code).toBe('missing-project');
  });
});
