// Tests main/core/api/installer-api.ts (kept with the installer tests it shares fixtures with).
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { DoctorFinding, InstallPlan, VendorDetection } from '../../../common/api';
import { installerApiFeature } from '../../../main/core/installer/installer-api';
import { startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import { fixture, makeTestEnv, put, textOrNull, type TestEnv } from './installer-test-env';

let t: TestEnv;
let daemon: DaemonHandle | undefined;

async function start(withHost: boolean): Promise<DaemonHandle> {
  const host = {
    home: t.env.home,
    vars: {},
    path: '',
    processEnv: { PATH: process.env.PATH, HOME: t.env.home },
  };
  daemon = await startDaemon({
    dataDir: t.env.dataDir,
    port: 0,
    baseFeatures: [installerApiFeature(withHost ? host : undefined)],
  });
  return daemon;
}

async function call<T>(
  d: DaemonHandle,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await fetch(new URL(path, d.url), {
    method,
    headers: { authorization: `Bearer ${d.tokens.operator}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as T };
}

beforeEach(async () => {
  t = await makeTestEnv();
});
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  await t.cleanup();
});

describe('/api/installer', () => {
  it('plans, applies and uninstalls through the daemon, auditing the writes with surface console', async () => {
    const d = await start(true);
    const path = join(t.env.home, '.codex', 'hooks.json');
    const original = await fixture('codex/hooks.json');
    await put(path, original);
    const options = { vendor: 'codex', scope: 'user', instruct: true, permissions: false };
    const plan = await call<InstallPlan>(d, 'POST', '/api/installer/plan', options);
    expect(plan.status).toBe(200);
    expect(plan.body.retrustRequired).toBe(true);
    expect(plan.body.changes.find((c) => c.path === path)?.diff).toContain(
      '+            "command": "AEP_INSTRUCT=1 ',
    );
    expect(await textOrNull(path)).toBe(original);

    const applied = await call<InstallPlan>(d, 'POST', '/api/installer/apply', options);
    expect(applied.status).toBe(200);
    expect(await textOrNull(path)).toBe(applied.body.changes.find((c) => c.path === path)?.after);

    const detected = await call<VendorDetection[]>(d, 'GET', '/api/installer/detect');
    expect(detected.body.find((v) => v.vendor === 'codex')).toMatchObject({
      configPath: path,
      configExists: true,
      installed: { instruct: true, permissions: false },
    });
    expect(detected.body.find((v) => v.vendor === 'hermes')).toMatchObject({
      configExists: false,
      installed: null,
      cliPath: null,
    });

    const removed = await call<InstallPlan>(d, 'POST', '/api/installer/uninstall', {
      vendor: 'codex',
      scope: 'user',
    });
    expect(removed.status).toBe(200);
    expect(await textOrNull(path)).toBe(original);

    const rows = d.context.audit.query({ surface: 'console' }).rows.map((r) => r.action);
    expect(rows).toEqual(expect.arrayContaining(['installer.apply', 'installer.uninstall']));
  });

  it('answers doctor findings', async () => {
    const d = await start(true);
    const doctor = await call<DoctorFinding[]>(d, 'POST', '/api/installer/doctor', {});
    expect(doctor.status).toBe(200);
    expect(doctor.body.find((f) => f.check === 'installed')).toMatchObject({ ok: false });
  });

  it('refuses bad bodies with 400 and a corrupt config with 409, leaving it untouched', async () => {
    const d = await start(true);
    expect(
      (await call(d, 'POST', '/api/installer/plan', { vendor: 'emacs', scope: 'user' })).status,
    ).toBe(400);
    expect(
      (
        await call(d, 'POST', '/api/installer/apply', {
          vendor: 'codex',
          scope: 'user',
          instruct: 'yes',
        })
      ).status,
    ).toBe(400);
    expect(
      (
        await call(d, 'POST', '/api/installer/apply', {
          vendor: 'hermes',
          scope: 'project',
          project: t.root,
        })
      ).status,
    ).toBe(400);
    const path = join(t.env.home, '.claude', 'settings.json');
    await put(path, '{ broken');
    const refused = await call<{ error: string; detail: string }>(
      d,
      'POST',
      '/api/installer/apply',
      { vendor: 'claude-code', scope: 'user' },
    );
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('corrupt-config');
    expect(await textOrNull(path)).toBe('{ broken');
  });

  it('answers 503 when the host gave no user environment', async () => {
    const d = await start(false);
    const res = await call<{ error: string }>(d, 'GET', '/api/installer/detect');
    expect(res).toEqual({
      status: 503,
      body: expect.objectContaining({ error: 'installer-unavailable' }),
    });
  });
});
