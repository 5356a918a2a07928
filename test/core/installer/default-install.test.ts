/**
 * The default install works from a clean shell (issue 11): for every vendor and scope the default
 * transport is the launcher, which reads the hook token file and daemon.json itself, so no config
 * names a token variable, holds a token or bakes in a port; and doctor, running the launchers with
 * the environment of a new login shell (no AEP_* variables), reaches the daemon for every vendor.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { VendorId } from '../../../common/vendors';
import { applyInstall, planInstall, runDoctor } from '../../../main/core/installer';
import { VENDOR_INSTALLERS } from '../../../main/core/vendors/installers';
import { startFakeDaemon, type FakeDaemon } from './fake-daemon';
import { makeTestEnv, unwrap, type TestEnv } from './installer-test-env';

const TOKEN = 'default-install-hook-token';
const LEGACY: readonly VendorId[] = ['claude-code', 'codex', 'qwen-code', 'vscode', 'hermes'];
let t: TestEnv;
let daemon: FakeDaemon;
let project: string;

beforeEach(async () => {
  daemon = await startFakeDaemon(TOKEN);
  t = await makeTestEnv({ runtime: { path: process.execPath, electron: false } });
  t = { ...t, env: { ...t.env, daemonUrl: daemon.url } };
  project = join(t.root, 'repo');
  await mkdir(project, { recursive: true });
  await writeFile(join(t.env.dataDir, 'hook-token'), TOKEN);
  await writeFile(join(t.env.dataDir, 'daemon.json'), JSON.stringify({ url: daemon.url }));
});
afterEach(async () => {
  await daemon.close();
  await t.cleanup();
});

describe('the default install', () => {
  for (const vendor of LEGACY) {
    for (const scope of VENDOR_INSTALLERS[vendor].scopes) {
      it(`${vendor} (${scope}): the launcher, no token and no port in any written file`, async () => {
        const plan = unwrap(
          await planInstall(
            {
              vendor,
              scope,
              ...(scope === 'project' ? { project } : {}),
              instruct: false,
              permissions: false,
            },
            t.env,
          ),
        );
        expect(plan.options.transport).toBe('command');
        const configs = plan.changes.filter((c) => !c.path.startsWith(t.env.dataDir));
        expect(configs.length).toBeGreaterThan(0);
        for (const change of configs) {
          expect(change.after).toContain('aep-companion-hook');
          expect(change.after).not.toContain('AEP_HOOK_TOKEN');
          expect(change.after).not.toContain(TOKEN);
          expect(change.after).not.toContain(new URL(daemon.url).port);
          // Project scope never writes Claude Code's usually committed settings.json.
          if (vendor === 'claude-code' && scope === 'project')
            expect(change.path).toBe(join(project, '.claude', 'settings.local.json'));
        }
        expect(plan.warnings.join('\n')).not.toMatch(/export AEP_HOOK_TOKEN/);
      });
    }
  }

  it('every vendor reaches the daemon from a clean shell (doctor runs the launchers without AEP_* variables)', async () => {
    for (const vendor of LEGACY)
      unwrap(
        await applyInstall({ vendor, scope: 'user', instruct: true, permissions: false }, t.env),
      );
    const findings = await runDoctor(
      {},
      { ...t.env, processEnv: { PATH: process.env.PATH, HOME: t.env.home } },
    );
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    expect(new Set(daemon.hooks.map((h) => h.vendor))).toEqual(new Set(LEGACY));
    for (const hook of daemon.hooks) {
      expect(hook.authorization).toBe(`Bearer ${TOKEN}`);
      expect(hook.query).toEqual({ instruct: '1' });
    }
  });
});
