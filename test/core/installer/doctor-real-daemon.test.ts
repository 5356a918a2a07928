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
    // One HTTP install too: the synthetic hook reaches the real hook route with the token from the shell.
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
    const findings = await runDoctor({}, t.env);
    expect(findings.filter((f) => !f.ok)).toEqual([]);
    expect(
      findings
        .filter((f) => f.vendor !== null && f.check.startsWith('hook-'))
        .map((f) => `${f.vendor}:${f.check}`),
    ).toEqual([
      'codex:hook-command',
      'qwen-code:hook-command',
      'vscode:hook-command',
      'hermes:hook-command',
      'claude-code:hook-command',
      'claude-code:hook-http',
    ]);
    // The synthetic hooks reached the route, yet no doctor session is recorded or listed.
    const res = await fetch(new URL('/api/sessions', daemon.url), {
      headers: { authorization: `Bearer ${daemon.tokens.operator}` },
    });
    expect(res.status).toBe(200);
    const listed = JSON.stringify(await res.json());
    expect(listed).not.toContain('aep-companion-doctor');
  });

  it('a wrong token is refused by the real daemon and reported', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    await writeFile(join(t.env.dataDir, 'hook-token'), 'not-the-token');
    const findings = await runDoctor({}, t.env);
    expect(findings.find((f) => f.check === 'hook-command')).toMatchObject({ ok: false });
    expect(findings.find((f) => f.check === 'hook-command')?.message).toContain(
      'refused the hook token',
    );
  });
});
