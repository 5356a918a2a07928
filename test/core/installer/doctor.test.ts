import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DoctorFinding } from '../../../common/api';
import { applyInstall, launcherPath, runDoctor } from '../../../main/core/installer';
import { deadUrl, startFakeDaemon, type FakeDaemon } from './fake-daemon';
import { makeTestEnv, put, unwrap, type TestEnv } from './installer-test-env';

const TOKEN = 'doctor-hook-token';
let t: TestEnv;
let daemon: FakeDaemon;

function byCheck(
  findings: readonly DoctorFinding[],
  vendor: string | null,
  check: string,
): DoctorFinding[] {
  return findings.filter((f) => f.vendor === vendor && f.check === check);
}

beforeEach(async () => {
  daemon = await startFakeDaemon(TOKEN);
  t = await makeTestEnv({ runtime: { path: process.execPath, electron: false } });
  t = {
    ...t,
    env: {
      ...t.env,
      daemonUrl: daemon.url,
      processEnv: { PATH: process.env.PATH, HOME: t.env.home, AEP_HOOK_TOKEN: TOKEN },
    },
  };
  await writeFile(join(t.env.dataDir, 'hook-token'), TOKEN);
  await writeFile(join(t.env.dataDir, 'daemon.json'), JSON.stringify({ url: daemon.url }));
});
afterEach(async () => {
  await daemon.close();
  await t.cleanup();
});

describe('doctor', () => {
  it('passes when synthetic hooks through the installed URL and command reach the daemon', async () => {
    unwrap(
      await applyInstall(
        {
          vendor: 'claude-code',
          scope: 'user',
          instruct: true,
          permissions: false,
          transport: 'http',
        },
        t.env,
      ),
    );
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    unwrap(
      await applyInstall(
        { vendor: 'hermes', scope: 'user', instruct: true, permissions: false },
        t.env,
      ),
    );
    const findings = await runDoctor({}, t.env);
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    expect(byCheck(findings, null, 'daemon-health')[0].ok).toBe(true);
    expect(byCheck(findings, 'claude-code', 'hook-http')).toHaveLength(1);
    expect(byCheck(findings, 'claude-code', 'hook-command')).toHaveLength(1);
    expect(byCheck(findings, 'codex', 'hook-command')).toHaveLength(1);
    expect(byCheck(findings, 'hermes', 'hook-command')).toHaveLength(1);
    expect(byCheck(findings, 'codex', 'trust')[0].remedy).toContain('/hooks');
    // Doctor cannot see whether Codex trusts its hooks: a note, never a pass.
    expect(byCheck(findings, 'codex', 'trust')[0].unchecked).toBe(true);
    // What reached the daemon: the vendor's route, the token, the opt-in, a doctor session.
    const claude = daemon.hooks.filter((h) => h.vendor === 'claude-code');
    expect(claude).toHaveLength(2);
    for (const hook of claude) {
      expect(hook.query).toEqual({ instruct: '1' });
      expect(hook.authorization).toBe(`Bearer ${TOKEN}`);
      expect(hook.body).toMatchObject({
        hook_event_name: 'PreCompact',
        session_id: 'aep-companion-doctor',
      });
    }
    expect(daemon.hooks.find((h) => h.vendor === 'hermes')?.query).toEqual({ instruct: '1' });
  });

  it('works when the data directory path has spaces and quotes (macOS Application Support)', async () => {
    const dataDir = join(t.root, 'Application Support', "it's here");
    const env = { ...t.env, dataDir };
    await put(join(dataDir, 'hook-token'), TOKEN);
    await put(join(dataDir, 'daemon.json'), JSON.stringify({ url: daemon.url }));
    for (const vendor of ['claude-code', 'codex', 'hermes'] as const) {
      const transport = vendor === 'claude-code' ? 'command' : undefined;
      unwrap(
        await applyInstall(
          {
            vendor,
            scope: 'user',
            instruct: true,
            permissions: false,
            ...(transport ? { transport } : {}),
          },
          env,
        ),
      );
    }
    const findings = await runDoctor({}, env);
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    expect(daemon.hooks.map((h) => h.vendor).sort()).toEqual(['claude-code', 'codex', 'hermes']);
  });

  it('checks only the vendor asked for', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    unwrap(
      await applyInstall(
        { vendor: 'qwen-code', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    const findings = await runDoctor({ vendor: 'qwen-code' }, t.env);
    expect(new Set(findings.map((f) => f.vendor))).toEqual(new Set([null, 'qwen-code']));
    expect(daemon.hooks.map((h) => h.vendor)).toEqual(['qwen-code']);
  });

  it('reports a stopped daemon with a remedy, and the hooks still answer (fail-open)', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    const down = await deadUrl();
    await writeFile(join(t.env.dataDir, 'daemon.json'), JSON.stringify({ url: down }));
    const findings = await runDoctor({}, { ...t.env, daemonUrl: down });
    const health = byCheck(findings, null, 'daemon-health')[0];
    expect(health.ok).toBe(false);
    expect(health.remedy).toMatch(/aep-companion serve/);
    const hook = byCheck(findings, 'codex', 'hook-command')[0];
    expect(hook.ok).toBe(false);
    expect(hook.message).toContain('did not reach the daemon');
    expect(hook.remedy).toBeTruthy();
  });

  it('reports a hook token file the daemon refuses, with the token file in the remedy', async () => {
    unwrap(
      await applyInstall(
        {
          vendor: 'claude-code',
          scope: 'user',
          instruct: false,
          permissions: false,
          transport: 'http',
        },
        t.env,
      ),
    );
    await writeFile(join(t.env.dataDir, 'hook-token'), 'stale-token');
    const findings = await runDoctor(
      {},
      { ...t.env, processEnv: { PATH: process.env.PATH, HOME: t.env.home } },
    );
    const command = byCheck(findings, 'claude-code', 'hook-command')[0];
    expect(command).toMatchObject({ ok: false });
    expect(command.message).toContain('refused the hook token');
    expect(command.remedy).toContain(join(t.env.dataDir, 'hook-token'));
    expect(byCheck(findings, 'claude-code', 'hook-http')[0]).toMatchObject({ ok: false });
  });

  it('reports a token variable that differs from the token file', async () => {
    unwrap(
      await applyInstall(
        {
          vendor: 'claude-code',
          scope: 'user',
          instruct: false,
          permissions: false,
          transport: 'http',
        },
        t.env,
      ),
    );
    const findings = await runDoctor(
      {},
      {
        ...t.env,
        processEnv: { PATH: process.env.PATH, HOME: t.env.home, AEP_HOOK_TOKEN: 'old-token' },
      },
    );
    expect(byCheck(findings, 'claude-code', 'token-env')[0]).toMatchObject({ ok: false });
    expect(byCheck(findings, 'claude-code', 'hook-http')[0].message).toContain(
      'refused the hook token',
    );
  });

  it('says when the HTTP hooks token variable is not exported', async () => {
    unwrap(
      await applyInstall(
        {
          vendor: 'qwen-code',
          scope: 'user',
          instruct: false,
          permissions: false,
          transport: 'http',
        },
        t.env,
      ),
    );
    const findings = await runDoctor(
      {},
      { ...t.env, processEnv: { PATH: process.env.PATH, HOME: t.env.home } },
    );
    const tokenEnv = byCheck(findings, 'qwen-code', 'token-env')[0];
    expect(tokenEnv.ok).toBe(false);
    expect(tokenEnv.remedy).toContain('export AEP_HOOK_TOKEN=');
  });

  it('reports hooks removed from the config and a missing install, each with its remedy', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    await put(join(t.env.home, '.codex', 'hooks.json'), '{}');
    const findings = await runDoctor({}, t.env);
    const config = byCheck(findings, 'codex', 'config')[0];
    expect(config).toMatchObject({
      ok: false,
      remedy: 'Run `aep-companion install --vendor codex --transport command`.',
    });
    const missing = await runDoctor({ vendor: 'hermes' }, t.env);
    expect(byCheck(missing, 'hermes', 'installed')[0]).toMatchObject({
      ok: false,
      remedy: 'Run `aep-companion install --vendor hermes`.',
    });
  });

  it('runs the launcher the manifest recorded from a clean shell: no token or URL variable is used', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    const dead = await deadUrl();
    const findings = await runDoctor(
      {},
      {
        ...t.env,
        processEnv: {
          PATH: process.env.PATH,
          HOME: t.env.home,
          AEP_HOOK_TOKEN: 'a-stale-token',
          AEP_COMPANION_URL: dead,
        },
      },
    );
    expect(byCheck(findings, 'codex', 'hook-command')[0]).toMatchObject({ ok: true });
    expect(daemon.hooks.map((h) => h.authorization)).toEqual([`Bearer ${TOKEN}`]);
  });

  it('never runs a configured command that merely contains the launcher name', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    const marker = join(t.root, 'ran');
    const hooksFile = join(t.env.home, '.codex', 'hooks.json');
    const text = await readFile(hooksFile, 'utf8');
    const launcher = launcherPath(t.env);
    await writeFile(
      hooksFile,
      text.replaceAll(`${launcher} codex`, `touch ${marker}; ${launcher} codex`),
    );
    const findings = await runDoctor({}, t.env);
    const hook = byCheck(findings, 'codex', 'hook-command')[0];
    expect(hook.ok).toBe(false);
    expect(hook.message).toContain('is not the launcher the companion installed');
    expect(hook.remedy).toContain('aep-companion install --vendor codex');
    expect(existsSync(marker)).toBe(false);
    expect(daemon.hooks).toEqual([]);
  });

  it('sends the hook token only to the daemon: HTTP hooks naming another port are reported, not probed', async () => {
    const other = await startFakeDaemon(TOKEN);
    try {
      unwrap(
        await applyInstall(
          {
            vendor: 'claude-code',
            scope: 'user',
            instruct: true,
            permissions: false,
            transport: 'http',
          },
          { ...t.env, daemonUrl: other.url },
        ),
      );
      const findings = await runDoctor({}, t.env);
      const port = byCheck(findings, 'claude-code', 'hook-port')[0];
      expect(port.ok).toBe(false);
      expect(port.message).toContain(`post to ${other.url}`);
      expect(port.message).toContain(`listens on ${daemon.url}`);
      expect(port.remedy).toContain(
        '`aep-companion install --vendor claude-code --instruct --transport http`',
      );
      expect(byCheck(findings, 'claude-code', 'hook-http')).toEqual([]);
      expect(other.hooks).toEqual([]);
      // The launcher entry (SessionStart) still reaches the daemon, wherever it listens.
      expect(byCheck(findings, 'claude-code', 'hook-command')[0].ok).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('reports a missing hook token file', async () => {
    await writeFile(join(t.env.dataDir, 'hook-token'), '');
    const findings = await runDoctor({}, t.env);
    expect(byCheck(findings, null, 'hook-token')[0]).toMatchObject({ ok: false });
  });
});
