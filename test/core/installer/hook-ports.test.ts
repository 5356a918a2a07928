/**
 * Hooks survive a port change (issue 11): HTTP hooks installed for one port, a daemon that now
 * listens on another, and the app says so at start (log), in `/api/status` (`hookPortMismatch`,
 * what the status bar shows) and offers the one-click reinstall (`POST /api/installer/repair`)
 * that rewrites them for the running daemon with the recorded opt-ins.
 */
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RepairResult, StatusInfo } from '../../../common/api';
import { installerApiFeature } from '../../../main/core/installer/installer-api';
import { startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import type { Logger } from '../../../main/core/logger';
import { applyInstall, hookPortMismatches, planInstall } from '../../../main/core/installer';
import { deadUrl } from './fake-daemon';
import { makeTestEnv, put, textOrNull, unwrap, type TestEnv } from './installer-test-env';

let t: TestEnv;
let daemon: DaemonHandle | undefined;
const warnings: string[] = [];

const logger: Logger = {
  debug: () => undefined,
  info: () => undefined,
  warn: (message) => void warnings.push(message),
  error: () => undefined,
};

async function call<T>(d: DaemonHandle, method: string, path: string): Promise<T> {
  const res = await fetch(new URL(path, d.url), {
    method,
    headers: { authorization: `Bearer ${d.tokens.operator}` },
  });
  expect(res.status, `${method} ${path}`).toBe(200);
  return (await res.json()) as T;
}

beforeEach(async () => {
  warnings.length = 0;
  t = await makeTestEnv();
});
afterEach(async () => {
  await daemon?.close();
  daemon = undefined;
  await t.cleanup();
});

describe('hooks that name another port', () => {
  it('are found, logged at start, shown in /api/status and reinstalled in one call', async () => {
    const oldUrl = await deadUrl();
    unwrap(
      await applyInstall(
        {
          vendor: 'claude-code',
          scope: 'user',
          instruct: true,
          permissions: false,
          transport: 'http',
        },
        { ...t.env, daemonUrl: oldUrl },
      ),
    );
    // A launcher install next to it never mismatches: it finds the daemon through daemon.json.
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    const host = {
      home: t.env.home,
      vars: {},
      path: '',
      processEnv: { PATH: process.env.PATH, HOME: t.env.home },
    };
    const d = await startDaemon({
      dataDir: t.env.dataDir,
      port: 0,
      logger,
      baseFeatures: [installerApiFeature(host)],
    });
    daemon = d;
    const settings = join(t.env.home, '.claude', 'settings.json');

    const status = await call<StatusInfo>(d, 'GET', '/api/status');
    expect(status.hookPortMismatch).toEqual([
      {
        vendor: 'claude-code',
        scope: 'user',
        project: null,
        file: settings,
        hookUrl: new URL(oldUrl).origin,
        daemonUrl: new URL(d.url).origin,
      },
    ]);
    await expect.poll(() => warnings.join('\n')).toContain(`post to ${new URL(oldUrl).origin}`);
    expect(warnings.join('\n')).toContain(`listens on ${new URL(d.url).origin}`);

    const repaired = await call<RepairResult>(d, 'POST', '/api/installer/repair');
    expect(repaired.failed).toEqual([]);
    expect(repaired.reinstalled.map((p) => p.options)).toEqual([
      {
        vendor: 'claude-code',
        scope: 'user',
        instruct: true,
        permissions: false,
        transport: 'http',
      },
    ]);
    const text = (await textOrNull(settings)) ?? '';
    expect(text).toContain(`${d.url}/hooks/claude-code?instruct=1`);
    expect(text).not.toContain(oldUrl);
    expect((await call<StatusInfo>(d, 'GET', '/api/status')).hookPortMismatch).toEqual([]);
  });

  it('an HTTP install on a port other than the usual one says so in its plan', async () => {
    const plan = unwrap(
      await planInstall(
        {
          vendor: 'qwen-code',
          scope: 'user',
          instruct: false,
          permissions: false,
          transport: 'http',
        },
        { ...t.env, daemonUrl: 'http://127.0.0.1:53123' },
      ),
    );
    expect(plan.warnings.join('\n')).toContain('listens on port 53123, not the usual 8787');
    expect(plan.warnings.join('\n')).toContain('launcher transport finds the daemon on any port');
    const usual = unwrap(
      await planInstall(
        { vendor: 'qwen-code', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    expect(usual.warnings.join('\n')).not.toContain('HTTP hooks name');
  });

  it('are none when nothing is installed, and a corrupt manifest is no crash', async () => {
    expect(await hookPortMismatches(t.env)).toEqual([]);
    await put(join(t.env.dataDir, 'installer', 'manifest.json'), '{not json');
    expect(await hookPortMismatches(t.env)).toEqual([]);
  });
});
