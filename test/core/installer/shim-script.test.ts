import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launcherPath } from '../../../main/core/installer';
import { launcherScript, shimFiles } from '../../../main/core/installer/shim-script';
import { deadUrl, startFakeDaemon, type FakeDaemon } from './fake-daemon';
import { makeTestEnv, type TestEnv } from './installer-test-env';

const TOKEN = 'hook-token-for-tests';
let t: TestEnv;
let daemon: FakeDaemon;

async function installShim(): Promise<void> {
  for (const file of shimFiles(t.env)) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.text);
    await chmod(file.path, file.mode);
  }
}

function runLauncher(
  vendor: string,
  stdin: string,
  extraEnv: Record<string, string> = {},
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(launcherPath(t.env), [vendor], {
      env: { PATH: process.env.PATH ?? '', ...extraEnv },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

beforeEach(async () => {
  t = await makeTestEnv({ runtime: { path: process.execPath, electron: false } });
  daemon = await startFakeDaemon(TOKEN);
  await installShim();
  await writeFile(join(t.env.dataDir, 'hook-token'), `${TOKEN}\n`);
  await writeFile(join(t.env.dataDir, 'daemon.json'), JSON.stringify({ url: daemon.url, pid: 1 }));
});
afterEach(async () => {
  await daemon.close();
  await t.cleanup();
});

describe('the installed hook shim', () => {
  it('posts the payload to the daemon in daemon.json with the token file and prints the reply', async () => {
    daemon.reply = {
      status: 200,
      body: '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"hi"}}',
    };
    const payload = { hook_event_name: 'UserPromptSubmit', session_id: 's1', prompt: 'go' };
    const out = await runLauncher('claude-code', JSON.stringify(payload));
    expect(out.code).toBe(0);
    expect(out.stdout).toBe(daemon.reply.body);
    expect(daemon.hooks).toEqual([
      { vendor: 'claude-code', query: {}, authorization: `Bearer ${TOKEN}`, body: payload },
    ]);
  });

  it('turns AEP_INSTRUCT / AEP_PERMISSIONS into the opt-in query, and honours AEP_HOOK_TOKEN and AEP_COMPANION_URL', async () => {
    const other = await startFakeDaemon('env-token');
    try {
      const out = await runLauncher('codex', '{"hook_event_name":"Stop"}', {
        AEP_INSTRUCT: '1',
        AEP_PERMISSIONS: '1',
        AEP_HOOK_TOKEN: 'env-token',
        AEP_COMPANION_URL: other.url,
      });
      expect(out.code).toBe(0);
      expect(daemon.hooks).toEqual([]);
      expect(other.hooks[0]).toMatchObject({
        vendor: 'codex',
        query: { instruct: '1', permissions: '1' },
        authorization: 'Bearer env-token',
      });
    } finally {
      await other.close();
    }
  });

  it('fails open when the daemon is down: empty reply ({} , nothing for Codex) and exit 0', async () => {
    const url = await deadUrl();
    const claude = await runLauncher('claude-code', '{"hook_event_name":"PreToolUse"}', {
      AEP_COMPANION_URL: url,
      AEP_HOOK_DOCTOR: '1',
    });
    expect(claude).toMatchObject({ code: 0, stdout: '{}' });
    expect(claude.stderr).toContain('ECONNREFUSED');
    const codex = await runLauncher('codex', '{"hook_event_name":"PreToolUse"}', {
      AEP_COMPANION_URL: url,
    });
    expect(codex).toMatchObject({ code: 0, stdout: '', stderr: '' });
  });

  it('prints nothing for Codex when the daemon has nothing to say, and the reply when it has', async () => {
    const quiet = await runLauncher('codex', '{"hook_event_name":"PostToolUse"}');
    expect(quiet).toMatchObject({ code: 0, stdout: '' });
    expect(daemon.hooks).toHaveLength(1);
    daemon.reply = {
      status: 200,
      body: '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"hi"}}',
    };
    const steered = await runLauncher('codex', '{"hook_event_name":"PreToolUse"}');
    expect(steered).toMatchObject({ code: 0, stdout: daemon.reply.body });
    daemon.reply = { status: 200, body: '{}' };
    expect(await runLauncher('claude-code', '{"hook_event_name":"Stop"}')).toMatchObject({
      code: 0,
      stdout: '{}',
    });
  });

  it('fails open on a refused token and on a reply that is not JSON', async () => {
    await writeFile(join(t.env.dataDir, 'hook-token'), 'wrong');
    const refused = await runLauncher('qwen-code', '{}', { AEP_HOOK_DOCTOR: '1' });
    expect(refused).toMatchObject({ code: 0, stdout: '{}' });
    expect(JSON.parse(refused.stderr.trim())).toEqual({
      aepHookDoctor: { url: `${daemon.url}/hooks/qwen-code`, status: 401, error: 'HTTP 401' },
    });
    await writeFile(join(t.env.dataDir, 'hook-token'), TOKEN);
    daemon.reply = { status: 200, body: 'oops' };
    const garbled = await runLauncher('hermes', '{}');
    expect(garbled).toMatchObject({ code: 0, stdout: '{}' });
  });

  it("is the command line's own CommonJS bundle next to the launcher, requiring only node:*", async () => {
    const script = shimFiles(t.env).find((f) => f.path.endsWith('.cjs'));
    expect(script?.path).toBe(`${launcherPath(t.env)}.cjs`);
    const text = script?.text ?? '';
    const bundle = await readFile(t.env.hookBundle ?? '', 'utf8');
    expect(text).toContain(bundle.replace(/\/\/# sourceMappingURL=.*\s*$/, ''));
    expect(text).not.toContain('sourceMappingURL');
    expect(text).not.toMatch(/^\s*import\s|import\.meta/m);
    const specs = [...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]);
    expect(specs.length).toBeGreaterThan(0);
    expect(specs.every((s) => s.startsWith('node:'))).toBe(true);
  });

  it('fails open for garbage on stdin and an unknown vendor', async () => {
    expect(await runLauncher('claude-code', 'not json')).toMatchObject({ code: 0, stdout: '{}' });
    expect(daemon.hooks[0].body).toBe('not json');
    expect(await runLauncher('nobody', '{}')).toMatchObject({ code: 0, stdout: '{}' });
  });

  it('the launcher falls back to node on PATH when the recorded runtime is gone, and answers {} without any runtime', async () => {
    await writeFile(
      launcherPath(t.env),
      launcherScript({ path: join(t.root, 'moved-app', 'node'), electron: true }),
    );
    const viaPath = await runLauncher('vscode', '{"hook_event_name":"Stop"}', {
      AEP_HOOK_FAST: '0',
    });
    expect(viaPath).toMatchObject({ code: 0, stdout: '{}' });
    expect(daemon.hooks).toHaveLength(1);
    const none = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn('/bin/sh', [launcherPath(t.env), 'hermes'], {
        env: { PATH: '/nonexistent', AEP_HOOK_FAST: '0' },
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.on('close', (code) => resolve({ code, stdout }));
      child.stdin.end('{}');
    });
    expect(none).toEqual({ code: 0, stdout: '{}' });
    const codexNone = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn('/bin/sh', [launcherPath(t.env), 'codex'], {
        env: { PATH: '/nonexistent', AEP_HOOK_FAST: '0' },
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.on('close', (code) => resolve({ code, stdout }));
      child.stdin.end('{}');
    });
    expect(codexNone).toEqual({ code: 0, stdout: '' });
    expect(daemon.hooks, 'without a runtime nothing was posted').toHaveLength(1);
  });

  it.skipIf(!existsSync('/bin/bash'))('the fast path needs no Node runtime at all', async () => {
    daemon.reply = { status: 200, body: '{"decision":"block","reason":"wait"}' };
    const out = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn('/bin/sh', [launcherPath(t.env), 'claude-code'], {
        env: { PATH: '/nonexistent' },
      });
      let stdout = '';
      child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
      child.on('close', (code) => resolve({ code, stdout }));
      child.stdin.end('{"hook_event_name":"Stop","session_id":"s2"}');
    });
    expect(out).toEqual({ code: 0, stdout: daemon.reply.body });
    expect(daemon.hooks).toEqual([
      {
        vendor: 'claude-code',
        query: {},
        authorization: `Bearer ${TOKEN}`,
        body: { hook_event_name: 'Stop', session_id: 's2' },
      },
    ]);
  });
});
