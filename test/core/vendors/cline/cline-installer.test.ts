// The Cline installer: one script per event in the hooks folder, diff, backup, manifest, exact
// uninstall, and doctor through the installed script against a real daemon plus the hub file check.
import { access, chmod, mkdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDaemon, type DaemonHandle } from '../../../../main/core/daemon';
import {
  applyInstall,
  planInstall,
  readManifest,
  runDoctor,
  uninstall,
} from '../../../../main/core/installer';
import { clineHubDiscoveryPath } from '../../../../common/cline';
import { CLINE_SCRIPTS } from '../../../../main/core/vendors/cline/install';
import {
  backupTexts,
  makeTestEnv,
  put,
  textOrNull,
  unwrap,
  type TestEnv,
} from '../../installer/installer-test-env';

let t: TestEnv;
beforeEach(async () => {
  t = await makeTestEnv({ runtime: { path: process.execPath, electron: false } });
});
afterEach(async () => {
  await t.cleanup();
});

const userDir = (): string => join(t.env.home, '.cline', 'hooks');

describe('cline installer', () => {
  it('writes one executable script per event the CLI loads, and uninstall removes exactly them', async () => {
    const options = {
      vendor: 'cline' as const,
      scope: 'user' as const,
      instruct: true,
      permissions: false,
    };
    const plan = unwrap(await planInstall(options, t.env));
    const scripts = CLINE_SCRIPTS.map((s) => join(userDir(), s));
    for (const path of scripts) expect(plan.changes.map((c) => c.path)).toContain(path);
    expect(await textOrNull(scripts[0]), 'planning writes nothing').toBeNull();

    unwrap(await applyInstall(options, t.env));
    for (const path of scripts) {
      const text = (await textOrNull(path)) as string;
      expect(text.startsWith('#!/bin/sh\n')).toBe(true);
      expect(text).toContain('AEP_INSTRUCT=1');
      expect(text).toContain('aep-companion-hook');
      expect((await stat(path)).mode & 0o111, `${path} is executable`).not.toBe(0);
    }
    expect(await textOrNull(join(userDir(), 'PreToolUse'))).toContain('AEP_HOOK_TIMEOUT_MS=3000');
    expect(await textOrNull(join(userDir(), 'TaskStart'))).toContain('AEP_HOOK_TIMEOUT_MS=2000');
    const manifest = unwrap(await readManifest(t.env));
    expect(manifest.installs[0].files.map((f) => f.path)).toEqual(scripts);

    const again = unwrap(await planInstall(options, t.env));
    expect(again.changes).toEqual([]);

    unwrap(await uninstall({ vendor: 'cline', scope: 'user' }, t.env));
    for (const path of scripts) expect(await textOrNull(path)).toBeNull();
    await expect(access(join(t.env.home, '.cline')), 'created folders go too').rejects.toThrow();
    expect(unwrap(await readManifest(t.env)).installs).toEqual([]);
  });

  it('project scope goes to .clinerules/hooks; a script of the user is backed up and restored byte for byte', async () => {
    const project = join(t.root, 'proj');
    await mkdir(project);
    const mine = '#!/bin/sh\necho my own hook\n';
    const theirs = join(project, '.clinerules', 'hooks', 'PostToolUse');
    await put(theirs, mine);
    const options = {
      vendor: 'cline' as const,
      scope: 'project' as const,
      project,
      instruct: false,
      permissions: false,
    };
    const plan = unwrap(await planInstall(options, t.env));
    expect(plan.changes.find((c) => c.path === theirs)?.before).toBe(mine);
    expect(plan.warnings.join('\n')).toContain('replaced, backed up');
    unwrap(await applyInstall(options, t.env));
    const installed = (await textOrNull(theirs)) as string;
    expect(installed).not.toContain('AEP_INSTRUCT');
    expect(await backupTexts(t.env)).toContain(mine);
    unwrap(await uninstall({ vendor: 'cline', scope: 'project', project }, t.env));
    expect(await textOrNull(theirs)).toBe(mine);
    expect(await textOrNull(join(project, '.clinerules', 'hooks', 'TaskStart'))).toBeNull();
  });
});

describe('cline doctor against the real daemon', () => {
  let daemon: DaemonHandle;
  beforeEach(async () => {
    daemon = await startDaemon({ dataDir: t.env.dataDir, port: 0 });
    await writeFile(
      join(t.env.dataDir, 'daemon.json'),
      JSON.stringify({ url: daemon.url, pid: process.pid }),
    ).catch(() => undefined);
    t = {
      ...t,
      env: {
        ...t.env,
        daemonUrl: daemon.url,
        processEnv: { PATH: process.env.PATH, HOME: t.env.home, AEP_COMPANION_URL: daemon.url },
      },
    };
  });
  afterEach(async () => {
    await daemon.close();
  });

  it('runs a synthetic hook through each installed script and reports the hub discovery file', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'cline', scope: 'user', instruct: true, permissions: false },
        t.env,
      ),
    );
    let findings = await runDoctor({ vendor: 'cline' }, t.env);
    const hooks = findings.filter((f) => f.check === 'hook-command');
    expect(hooks).toHaveLength(CLINE_SCRIPTS.length);
    expect(hooks.filter((f) => !f.ok)).toEqual([]);
    const hub = findings.find((f) => f.check === 'cline-hub');
    expect(hub?.ok).toBe(false);
    expect(hub?.message).toContain('hooks only');

    const discovery = clineHubDiscoveryPath(t.env.home);
    await put(discovery, JSON.stringify({ url: 'ws://127.0.0.1:1/hub', authToken: 'x', pid: 1 }));
    await chmod(discovery, 0o644);
    findings = await runDoctor({ vendor: 'cline' }, t.env);
    expect(findings.find((f) => f.check === 'cline-hub')?.message).toContain(
      'readable by other users',
    );
    await chmod(discovery, 0o600);
    findings = await runDoctor({ vendor: 'cline' }, t.env);
    expect(findings.find((f) => f.check === 'cline-hub')?.ok).toBe(true);
  });
});
