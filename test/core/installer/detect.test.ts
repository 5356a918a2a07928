import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyInstall, detectVendor, detectVendors } from '../../../main/core/installer';
import { makeTestEnv, put, unwrap, type TestEnv } from './installer-test-env';

let t: TestEnv;
beforeEach(async () => {
  t = await makeTestEnv();
});
afterEach(async () => {
  await t.cleanup();
});

async function fakeCli(dir: string, name: string, script: string): Promise<string> {
  const path = join(dir, name);
  await put(path, `#!/bin/sh\n${script}\n`);
  await chmod(path, 0o755);
  return path;
}

describe('detect', () => {
  it('finds a vendor CLI on the given PATH and reads its version', async () => {
    const bin = join(t.root, 'bin');
    const claude = await fakeCli(bin, 'claude', 'echo "2.1.332 (Claude Code)"');
    const env = {
      ...t.env,
      path: `${join(t.root, 'empty')}:${bin}`,
      processEnv: { PATH: process.env.PATH },
    };
    const found = await detectVendor('claude-code', env);
    expect(found).toMatchObject({
      vendor: 'claude-code',
      cliPath: claude,
      cliVersion: '2.1.332 (Claude Code)',
      configExists: false,
      installed: null,
    });
    expect(found.configPath).toBe(join(t.env.home, '.claude', 'settings.json'));
  });

  it('reports a CLI whose --version fails or hangs as present without a version', async () => {
    const bin = join(t.root, 'bin');
    await fakeCli(bin, 'codex', 'exit 3');
    await fakeCli(bin, 'qwen', 'exec sleep 30');
    const env = {
      ...t.env,
      path: bin,
      versionTimeoutMs: 300,
      processEnv: { PATH: process.env.PATH },
    };
    expect(await detectVendor('codex', env)).toMatchObject({
      cliPath: join(bin, 'codex'),
      cliVersion: null,
    });
    expect(await detectVendor('qwen-code', env)).toMatchObject({
      cliPath: join(bin, 'qwen'),
      cliVersion: null,
    });
  });

  it('honours CLAUDE_CONFIG_DIR, CODEX_HOME, QWEN_HOME and HERMES_HOME', async () => {
    const vars = {
      CLAUDE_CONFIG_DIR: join(t.root, 'c'),
      CODEX_HOME: join(t.root, 'x'),
      QWEN_HOME: join(t.root, 'q'),
      HERMES_HOME: join(t.root, 'h'),
    };
    const all = await detectVendors({ ...t.env, vars });
    expect(Object.fromEntries(all.map((d) => [d.vendor, d.configPath]))).toEqual({
      'claude-code': join(vars.CLAUDE_CONFIG_DIR, 'settings.json'),
      codex: join(vars.CODEX_HOME, 'hooks.json'),
      'qwen-code': join(vars.QWEN_HOME, 'settings.json'),
      vscode: join(t.env.home, '.copilot', 'hooks', 'aep-companion.json'),
      hermes: join(vars.HERMES_HOME, 'config.yaml'),
      cline: join(t.env.home, '.cline', 'hooks', 'TaskStart'),
    });
  });

  it('reports what of ours is installed, from the manifest and from the config alone', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: true, permissions: true },
        t.env,
      ),
    );
    expect((await detectVendor('codex', t.env)).installed).toEqual({
      instruct: true,
      permissions: true,
    });
    // A config holding our entries without a manifest record (e.g. a restored data dir).
    await put(
      join(t.env.home, '.qwen', 'settings.json'),
      JSON.stringify({
        hooks: {
          Stop: [
            {
              hooks: [
                {
                  type: 'http',
                  name: 'aep-companion',
                  url: 'http://127.0.0.1:8787/hooks/qwen-code?instruct=1',
                },
              ],
            },
          ],
        },
      }),
    );
    expect((await detectVendor('qwen-code', t.env)).installed).toEqual({
      instruct: true,
      permissions: false,
    });
  });

  it('warns when our hooks vanished from the config, and on a corrupt config', async () => {
    unwrap(
      await applyInstall(
        { vendor: 'codex', scope: 'user', instruct: false, permissions: false },
        t.env,
      ),
    );
    await put(join(t.env.home, '.codex', 'hooks.json'), '{"hooks": {}}');
    const gone = await detectVendor('codex', t.env);
    expect(gone.installed).toBeNull();
    expect(gone.warnings.join('\n')).toContain('no longer there');
    await put(join(t.env.home, '.claude', 'settings.json'), '{ nope');
    expect((await detectVendor('claude-code', t.env)).warnings.join('\n')).toContain(
      'not valid JSON',
    );
  });
});
