/**
 * The command-hook shim as the vendors run it: a child process of bin/aep-companion.mjs over a
 * private bundle (scripts/build-cli.mjs), payload on stdin, reply on stdout.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer, type Server } from 'node:http';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { VENDORS } from '../../../common/vendors';
import { VENDOR_ADAPTERS } from '../../../main/core/vendors';
import { VENDOR_INSTALLERS } from '../../../main/core/vendors/installers';
import { HELD_MARGIN_MS } from '../../../main/core/installer/shim-tables';
import { buildCli } from '../../../scripts/build-cli.mjs';
import { ccPayload, command, Consumer, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from '../hooks/hooks-harness';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../../..');

/** The repository's layout in a temp directory: bin/aep-companion.mjs next to a fresh out/cli. */
const built = mkdtempSync(join(tmpdir(), 'aep-hook-cli-'));
const bin = join(built, 'bin', 'aep-companion.mjs');

type Run = { code: number | null; stdout: string; stderr: string };
const shim = (args: string[], stdin: string, env: Record<string, string>): Promise<Run> => spawnCli([bin, 'hook', ...args], stdin, env);

function spawnCli(argv: string[], stdin: string, env: Record<string, string>): Promise<Run> {
  return new Promise((done) => {
    const child = spawn(process.execPath, argv, {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => done({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

let d: HooksDaemon;
let silent: Server;
let silentUrl: string;

/**
 * Sends the instruction "from the console" (`type`, for `session`) over an operator socket, waits
 * until it is accepted, then runs `then` with the socket still open.
 */
async function withAcceptedInstruction<T>(type: string, session: string, then: () => Promise<T>): Promise<T> {
  const c = await Consumer.open(d.url, d.daemon.tokens.operator);
  try {
    const cmd = command(type, session, { text: 'from the console' });
    c.send(cmd);
    await c.event((e) => e.cause === cmd.id && e.type === 'control.accepted');
    return await then();
  } finally {
    c.close();
  }
}

beforeAll(async () => {
  await buildCli({ outdir: join(built, 'out', 'cli') });
  mkdirSync(join(built, 'bin'));
  copyFileSync(join(root, 'bin', 'aep-companion.mjs'), bin);
  d = await startHooksDaemon({ clock: new TestClock() });
  silent = createServer(() => undefined);
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
  silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
}, 60_000);
afterAll(async () => {
  silent.closeAllConnections();
  silent.close();
  await d.close();
  removeDataDir(d.dataDir);
  rmSync(built, { recursive: true, force: true });
});

describe('aep-companion hook', () => {
  it('posts the payload with the opt-in and prints the reply carrying the instruction', async () => {
    d.parts.killSwitch.set(true, { actor: 'operator', surface: 'api' });
    const env = { AEP_COMPANION_URL: d.url, AEP_HOOK_TOKEN: d.daemon.tokens.hook, AEP_INSTRUCT: '1' };
    const start = await shim(['claude-code'], JSON.stringify(ccPayload('SessionStart', 'shim-1', { source: 'startup' })), env);
    expect(start).toMatchObject({ code: 0, stdout: '{}' });
    const prompt = await withAcceptedInstruction('x.claude-code.control.instruct', 'shim-1', () =>
      shim(['claude-code'], JSON.stringify(ccPayload('UserPromptSubmit', 'shim-1', { prompt: 'go' })), env),
    );
    expect(prompt.code).toBe(0);
    expect(JSON.parse(prompt.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'from the console' } });
  });

  it("finds the daemon through daemon.json and the token through the data directory's hook-token file", async () => {
    writeFileSync(join(d.dataDir, 'daemon.json'), JSON.stringify({ url: d.url, pid: process.pid }));
    const res = await shim(['codex', '--data-dir', d.dataDir], JSON.stringify({ hook_event_name: 'SessionStart', session_id: 'via-file', source: 'startup' }), {});
    expect(res).toMatchObject({ code: 0, stdout: '' });
    const sessions = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    expect(((await sessions.json()) as { session: string }[]).some((s) => s.session === 'via-file')).toBe(true);
    expect(readFileSync(join(d.dataDir, 'hook-token'), 'utf8').trim()).toBe(d.daemon.tokens.hook);
  });

  it('fails open with {} and exit 0 when no daemon listens', async () => {
    const res = await shim(['claude-code'], JSON.stringify(ccPayload('Stop', 'x')), { AEP_COMPANION_URL: 'http://127.0.0.1:9', AEP_HOOK_TOKEN: 't' });
    expect(res).toMatchObject({ code: 0, stdout: '{}' });
    expect(res.stderr).toMatch(/ECONNREFUSED/);
  });

  it('fails open with {} when the daemon does not answer in time', async () => {
    const res = await shim(['claude-code'], JSON.stringify(ccPayload('Stop', 'x')), { AEP_COMPANION_URL: silentUrl, AEP_HOOK_TOKEN: 't', AEP_HOOK_TIMEOUT_MS: '300' });
    expect(res).toMatchObject({ code: 0, stdout: '{}' });
    expect(res.stderr).toMatch(/no reply within 300 ms/);
  });

  it('fails open with {} when the daemon refuses the token', async () => {
    const res = await shim(['claude-code'], JSON.stringify(ccPayload('Stop', 'x')), { AEP_COMPANION_URL: d.url, AEP_HOOK_TOKEN: 'wrong-token' });
    expect(res).toMatchObject({ code: 0, stdout: '{}' });
    expect(res.stderr).toMatch(/HTTP 401/);
  });

  it('prints nothing for Codex when the daemon has nothing to say, and the steering reply when it has', async () => {
    d.parts.killSwitch.set(true, { actor: 'operator', surface: 'api' });
    const env = { AEP_COMPANION_URL: d.url, AEP_HOOK_TOKEN: d.daemon.tokens.hook, AEP_INSTRUCT: '1' };
    const codex = (payload: Record<string, unknown>) => shim(['codex'], JSON.stringify({ session_id: 'codex-1', cwd: '/p', ...payload }), env);
    const start = await codex({ hook_event_name: 'SessionStart', source: 'startup' });
    expect(start).toMatchObject({ code: 0, stdout: '' });
    const prompt = await withAcceptedInstruction('x.codex.control.instruct', 'codex-1', () =>
      codex({ hook_event_name: 'UserPromptSubmit', turn_id: 't1', prompt: 'go' }),
    );
    expect(prompt.code).toBe(0);
    expect(JSON.parse(prompt.stdout)).toEqual({ hookSpecificOutput: { hookEventName: 'UserPromptSubmit', additionalContext: 'from the console' } });
  });

  it('fails open with empty output for Codex (its no-op) when no daemon listens', async () => {
    const res = await shim(['codex'], JSON.stringify({ hook_event_name: 'Stop', session_id: 'x', turn_id: 't' }), { AEP_COMPANION_URL: 'http://127.0.0.1:9', AEP_HOOK_TOKEN: 't' });
    expect(res).toMatchObject({ code: 0, stdout: '' });
    expect(res.stderr).toMatch(/ECONNREFUSED; replying with empty output/);
  });

  it('answers {} for an unknown vendor without calling anyone', async () => {
    const res = await shim(['gemini'], '{}', { AEP_COMPANION_URL: 'http://127.0.0.1:9' });
    expect(res).toMatchObject({ code: 0, stdout: '{}' });
    expect(res.stderr).toMatch(/unknown vendor/);
  });

  it('runs as the shim when its CommonJS bundle is started directly (node out/cli/hook.cjs <vendor>)', async () => {
    const hookCjs = join(built, 'out', 'cli', 'hook.cjs');
    const env = { AEP_COMPANION_URL: d.url, AEP_HOOK_TOKEN: d.daemon.tokens.hook };
    const res = await spawnCli([hookCjs, 'claude-code'], JSON.stringify(ccPayload('SessionStart', 'direct-cjs', { source: 'startup' })), env);
    expect(res).toMatchObject({ code: 0, stdout: '{}', stderr: '' });
    const sessions = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    expect(((await sessions.json()) as { session: string }[]).some((s) => s.session === 'direct-cjs')).toBe(true);
    // Run directly it is the installed shim: stderr only under AEP_HOOK_DOCTOR, as one JSON report.
    const downEnv = { AEP_COMPANION_URL: 'http://127.0.0.1:9', AEP_HOOK_TOKEN: 't' };
    expect(await spawnCli([hookCjs, 'codex'], '{}', downEnv)).toEqual({ code: 0, stdout: '', stderr: '' });
    const down = await spawnCli([hookCjs, 'codex'], '{}', { ...downEnv, AEP_HOOK_DOCTOR: '1' });
    expect(down).toMatchObject({ code: 0, stdout: '' });
    expect(JSON.parse(down.stderr)).toEqual({ aepHookDoctor: { url: 'http://127.0.0.1:9/hooks/codex', error: 'ECONNREFUSED' } });
  });

  it('reads the whole payload from a stdin the vendor left non-blocking and still open', async () => {
    // Another process on the same pipe (here a Node process that opened its stdin) can leave it in
    // non-blocking mode; the shim's plain reads then get EAGAIN before the payload is complete and
    // must go on reading. The shell waits for that process, shows the pipe's flags, then becomes
    // the shim (exec keeps its pid, which is how the test sees the shim start).
    const hookCjs = join(built, 'out', 'cli', 'hook.cjs');
    const marker = join(built, 'nonblocking-holder.pid');
    const holder = `process.stdin; require("node:fs").writeFileSync(${JSON.stringify(marker)}, String(process.pid)); setTimeout(() => {}, 20000)`;
    const script = [
      'exec 3<&0',
      `${JSON.stringify(process.execPath)} -e '${holder}' <&3 >/dev/null 2>&1 &`,
      `i=0; while [ ! -s ${JSON.stringify(marker)} ] && [ $i -lt 500 ]; do sleep 0.02; i=$((i + 1)); done`,
      'grep flags /proc/$$/fdinfo/0 >&2',
      `exec ${JSON.stringify(process.execPath)} ${JSON.stringify(hookCjs)} claude-code`,
    ].join('\n');
    const payload = JSON.stringify(ccPayload('SessionStart', 'nonblocking-stdin', { source: 'startup' }));
    const child = spawn('sh', ['-c', script], {
      cwd: root,
      env: { PATH: process.env.PATH ?? '', AEP_COMPANION_URL: d.url, AEP_HOOK_TOKEN: d.daemon.tokens.hook },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const closed = new Promise<number | null>((done) => child.on('close', done));
    child.stdin.write(payload.slice(0, 20));
    try {
      // The rest of the payload only once the shim runs, so its first reads find the pipe empty.
      const cmdline = `/proc/${child.pid}/cmdline`;
      const started = (): boolean => {
        try {
          return readFileSync(cmdline, 'utf8').includes('hook.cjs');
        } catch {
          return true; // already gone: the assertions below say why
        }
      };
      for (let i = 0; i < 1_000 && !started(); i++) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, 250));
      child.stdin.end(payload.slice(20));
      expect(await closed).toBe(0);
    } finally {
      try {
        process.kill(Number(readFileSync(marker, 'utf8')));
      } catch {
        // already gone
      }
    }
    expect(stdout).toBe('{}');
    const flags = /flags:\s*(\d+)/.exec(stderr);
    expect(flags && (parseInt(flags[1], 8) & 0o4000) !== 0).toBe(true);
    const sessions = await fetch(`${d.url}/api/sessions`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    expect(((await sessions.json()) as { session: string }[]).some((s) => s.session === 'nonblocking-stdin')).toBe(true);
  }, 30_000);

  it('run directly, finds its data directory from its own location (the parent of its folder)', async () => {
    const hookCjs = join(built, 'out', 'cli', 'hook.cjs');
    writeFileSync(join(built, 'out', 'daemon.json'), JSON.stringify({ url: d.url, pid: process.pid }));
    writeFileSync(join(built, 'out', 'hook-token'), `${d.daemon.tokens.hook}\n`);
    const payload = JSON.stringify(ccPayload('SessionStart', 'own-location', { source: 'startup' }));
    const res = await spawnCli([hookCjs, 'claude-code'], payload, { AEP_HOOK_DOCTOR: '1' });
    expect(res).toMatchObject({ code: 0, stdout: '{}' });
    expect(JSON.parse(res.stderr)).toEqual({ aepHookDoctor: { url: `${d.url}/hooks/claude-code`, status: 200, reply: 'empty' } });
  });

  it('imports neither the daemon core nor better-sqlite3', () => {
    const seen = new Set<string>();
    const visit = (file: string): void => {
      if (seen.has(file)) return;
      seen.add(file);
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/^\s*import\s+(?!type\b)[^'"]*['"]([^'"]+)['"]/gm)) {
        const spec = m[1];
        expect(spec).not.toMatch(/better-sqlite3|ws$/);
        if (spec.startsWith('.')) visit(resolve(dirname(file), `${spec}.ts`));
      }
    };
    visit(join(root, 'main/cli/commands/hook.ts'));
    const files = [...seen].map((f) => f.slice(root.length + 1));
    expect(files.some((f) => f.startsWith('main/core/'))).toBe(false);
    expect(files).toContain('main/cli/locate-daemon.ts');
  });

  it("carries every vendor's held moments and empty reply from its adapter, and requires only node:*", async () => {
    const hookJs = join(built, 'out', 'cli', 'hook.cjs');
    const mod = (await import(pathToFileURL(hookJs).href)) as typeof import('../../../main/cli/commands/hook');
    expect(VENDORS).toContain('cline');
    expect(mod.HOOK_TABLES).toEqual({
      held: Object.fromEntries(VENDORS.map((v) => [v, [...VENDOR_ADAPTERS[v].heldMoments]])),
      heldMs: Object.fromEntries(
        VENDORS.flatMap((v) => {
          const seconds = VENDOR_INSTALLERS[v].heldTimeoutS;
          return seconds === undefined ? [] : [[v, seconds * 1000 - HELD_MARGIN_MS]];
        }),
      ),
      empty: Object.fromEntries(VENDORS.map((v) => [v, VENDOR_ADAPTERS[v].emptyCommandOutput])),
    });
    for (const v of VENDORS) {
      expect(mod.emptyReplyFor(v)).toBe(VENDOR_ADAPTERS[v].emptyCommandOutput);
      for (const moment of VENDOR_ADAPTERS[v].heldMoments)
        expect(mod.isHeldMoment(Buffer.from(JSON.stringify({ hook_event_name: moment })), v)).toBe(true);
      expect(mod.isHeldMoment(Buffer.from(JSON.stringify({ hook_event_name: 'Stop' })), v)).toBe(false);
    }
    // One CommonJS file (no ES-module loader at start): no import statement, only node:* required.
    const text = readFileSync(hookJs, 'utf8');
    expect(text).not.toMatch(/^\s*import\s/m);
    const specs = [...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g)].map((m) => m[1]);
    expect(specs.length).toBeGreaterThan(0);
    expect(specs.every((s) => s.startsWith('node:'))).toBe(true);
  });

  it('fails open for cline with {} when no daemon listens', async () => {
    const res = await shim(['cline'], JSON.stringify({ hookName: 'TaskStart' }), { AEP_COMPANION_URL: 'http://127.0.0.1:9', AEP_HOOK_TOKEN: 't' });
    expect(res).toMatchObject({ code: 0, stdout: '{}' });
    expect(res.stderr).toMatch(/ECONNREFUSED; replying \{\}/);
  });

  it('run from the sources without its built-in tables, says so and fails open', async () => {
    const res = await spawnCli(['--import', 'tsx', join(here, 'run-cli.ts'), 'hook', 'claude-code'], '{}', { AEP_COMPANION_URL: 'http://127.0.0.1:9' });
    expect(res).toMatchObject({ code: 0, stdout: '{}' });
    expect(res.stderr).toMatch(/no vendor tables/);
  });
});
