/**
 * The installer never writes through a symbolic link that leaves the place the write belongs to
 * (issue 8 §4): a repository whose `.claude/` or `.github/hooks/aep-companion.json` links
 * elsewhere is refused with a clear message, and the file the link points at stays untouched.
 */
import { mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { InstallOptions } from '../../../common/api';
import { applyInstall, planInstall, uninstall } from '../../../main/core/installer';
import { writeFileAtomic } from '../../../main/core/installer/atomic-write';
import { ConfinementError } from '../../../main/core/installer/confined-path';
import { makeTestEnv, put, textOrNull, unwrap, type TestEnv } from './installer-test-env';

let t: TestEnv;
let project: string;
let outside: string;
beforeEach(async () => {
  t = await makeTestEnv();
  project = join(t.root, 'repo');
  outside = join(t.root, 'elsewhere');
  await mkdir(project, { recursive: true });
  await mkdir(outside, { recursive: true });
});
afterEach(async () => {
  await t.cleanup();
});

const projectInstall = (vendor: InstallOptions['vendor']): InstallOptions => ({
  vendor,
  scope: 'project',
  project,
  instruct: false,
  permissions: false,
});

describe('symbolic links that leave the target', () => {
  it('refuses a project whose .claude/ folder links outside the project', async () => {
    const victim = join(outside, 'settings.local.json');
    await put(victim, '{"mine": true}\n');
    await symlink(outside, join(project, '.claude'));
    const plan = await planInstall(projectInstall('claude-code'), t.env);
    expect(plan.ok).toBe(false);
    if (plan.ok) return;
    expect(plan.error.code).toBe('unsafe-path');
    expect(plan.error.message).toContain(
      `${join(project, '.claude')} is a symbolic link to ${outside}`,
    );
    expect(plan.error.message).toContain(`outside ${project}`);
    const applied = await applyInstall(projectInstall('claude-code'), t.env);
    expect(applied.ok ? 'written' : applied.error.code).toBe('unsafe-path');
    expect(await textOrNull(victim)).toBe('{"mine": true}\n');
    expect(await readdir(outside)).toEqual(['settings.local.json']);
  });

  it('refuses a project whose .github/hooks/aep-companion.json links to another file', async () => {
    const victim = join(outside, 'precious.json');
    await put(victim, '{"keep": 1}\n');
    await mkdir(join(project, '.github', 'hooks'), { recursive: true });
    await symlink(victim, join(project, '.github', 'hooks', 'aep-companion.json'));
    const applied = await applyInstall(projectInstall('vscode'), t.env);
    expect(applied.ok).toBe(false);
    if (applied.ok) return;
    expect(applied.error.code).toBe('unsafe-path');
    expect(applied.error.message).toMatch(
      /aep-companion\.json is a symbolic link to .*precious\.json/,
    );
    expect(await textOrNull(victim)).toBe('{"keep": 1}\n');
    const removed = await uninstall({ vendor: 'vscode', scope: 'project', project }, t.env);
    expect(removed.ok ? 'removed' : removed.error.code).toBe('unsafe-path');
    expect(await textOrNull(victim)).toBe('{"keep": 1}\n');
  });

  it('refuses a user config linked outside the home directory', async () => {
    const victim = join(outside, 'hooks.json');
    await put(victim, '{}\n');
    await mkdir(join(t.env.home, '.codex'), { recursive: true });
    await symlink(victim, join(t.env.home, '.codex', 'hooks.json'));
    const plan = await planInstall({ ...projectInstall('codex'), scope: 'user' }, t.env);
    expect(plan.ok ? 'planned' : plan.error.code).toBe('unsafe-path');
    expect(await textOrNull(victim)).toBe('{}\n');
  });

  it('still writes through links that stay inside the project', async () => {
    await mkdir(join(project, 'shared-claude'), { recursive: true });
    await symlink(join(project, 'shared-claude'), join(project, '.claude'));
    unwrap(await applyInstall(projectInstall('claude-code'), t.env));
    expect(await textOrNull(join(project, 'shared-claude', 'settings.local.json'))).toContain(
      'aep-companion-hook',
    );
  });

  it('writeFileAtomic refuses a file link leaving its folder and writes nothing', async () => {
    const victim = join(outside, 'target.txt');
    await writeFile(victim, 'original');
    const dir = join(t.root, 'configs');
    await mkdir(dir);
    await symlink(victim, join(dir, 'link.txt'));
    await expect(writeFileAtomic(join(dir, 'link.txt'), 'overwritten')).rejects.toBeInstanceOf(
      ConfinementError,
    );
    expect(await textOrNull(victim)).toBe('original');
    expect(await readdir(dir)).toEqual(['link.txt']);
  });
});
