// Doctor against the real daemon (hook routes, token auth), not a stand-in.
import { access, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import { applyInstall, runDoctor } from '../../../main/core/installer';
import { makeTestEnv, unwrap, type TestEnv } from './installer-test-env';

let t: TestEnv;
let daemon: DaemonHandle;

beforeEach(async () => {
  t = await makeTestEnv({ runtime: { path: process.execPath, electron: false } });
  daemon = await startDaemon({ dataDir: t.env.dataDir, port: 0 });
  try {
    await access(join(t.env.dataDir, 'daemon.json'));
  } catch {
    await writeFile(
      join(t.env.dataDir, 'daemon.json'),
      JSON.stringify({ url: daemon.url, pid: process.pid }),
    );
  }
  t = {
    ...t,
    env: {
      ...t.env,
      daemonUrl: daemon.url,
      processEnv: {
        PATH: process.env.PATH,
        HOME: t.env.home,
        AEP_HOOK_TOKEN: daemon.tokens.hook,
        AEP_COMPANION_URL: daemon.url,
      },
    },
  };
});
afterEach(async () => {
  await daemon.close();
  await t.cleanup();
});

describe('doctor against the real daemon', () => {
  it('every installed vendor passes: synthetic hooks reach the hook routes and the replies parse', async () => {
    for (const vendor of ['claude-code', 'codex', 'qwen-code', 'vscode', 'hermes'] as const) {
      unwrap(
        await applyInstall({ vendor, scope: 'user', instruct: true, permissions: false }, t.env),
      );
    }
    const findings = await runDoctor({}, t.env);
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    expect(
      findings
        .filter((f) => f.vendor !== null && f.check.startsWith('hook-'))
        .map((f) => `${f.vendor}:${f.check}`),
    ).toEqual([
      'claude-code:hook-command',
      'claude-code:hook-http',
      'codex:hook-command',
      'qwen-code:hook-http',
      'vscode:hook-command',
      'hermes:hook-command',
    ]);
  });

  it('a wrong token is refused by the real daemon and reported', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    const findings = await runDoctor(
      {},
      { ...t.env, processEnv: { ...t.env.processEnv, AEP_HOOK_TOKEN: 'not-the-token' } },
    );
    expect(findings.find((f) => f.check === 'hook-command')).toMatchObject({ ok: false });
  });
});
