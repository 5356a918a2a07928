/**
 * The hook shim's bash fast path against the Node shim: each case runs the installed launcher
 * twice (as installed, and with AEP_HOOK_FAST=0) against a raw socket daemon, and the two must
 * send the same request bytes and print the same thing. The launcher's runtime is a wrapper that
 * notes each Node start, so every case also says which path answered.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { launcherPath } from '../../../main/core/installer';
import { DIRECT_WRITE_LIMIT, fastShimScript } from '../../../main/core/installer/shim-fast';
import { launcherScript, shimFiles } from '../../../main/core/installer/shim-script';
import { deadUrl } from './fake-daemon';
import { makeTestEnv, type TestEnv } from './installer-test-env';

const TOKEN = 'fast-path-token';
const BASH = '/bin/bash';
let t: TestEnv;
let daemon: RawDaemon;
let nodeLog: string;

/** A daemon at the socket level: records each request's bytes and answers with `answer`. */
interface RawDaemon {
  readonly url: string;
  readonly requests: Buffer[];
  /**
   * The raw response to a complete request, or null to never answer; `delayMs` before it; `stall`:
   * stop reading the request once its first bytes arrived.
   */
  answer: { raw: string | null; delayMs?: number; stall?: boolean };
  close(): Promise<void>;
}

function responseOf(status: number, body: string, extra = ''): string {
  return `HTTP/1.1 ${status} X\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n${body}`;
}

async function startRawDaemon(host = '127.0.0.1'): Promise<RawDaemon> {
  const requests: Buffer[] = [];
  const sockets = new Set<Socket>();
  const state: RawDaemon['answer'] = { raw: responseOf(200, '{}') };
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let bytes = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      if (state.stall) {
        socket.pause();
        return;
      }
      bytes = Buffer.concat([bytes, chunk]);
      const end = bytes.indexOf('\r\n\r\n');
      if (end === -1) return;
      const length = /content-length: (\d+)/i.exec(bytes.toString('latin1', 0, end));
      if (bytes.length < end + 4 + Number(length?.[1] ?? 0)) return;
      requests.push(bytes);
      const { raw, delayMs = 0 } = state;
      if (raw === null) return;
      setTimeout(() => socket.end(raw), delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  const { port } = server.address() as { port: number };
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    requests,
    get answer() {
      return state;
    },
    set answer(value) {
      Object.assign(state, { delayMs: 0, stall: false }, value);
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
  node: boolean;
  request: string | undefined;
}

/** Runs the installed launcher once; `fast` false sets AEP_HOOK_FAST=0. */
async function launch(
  args: string[],
  stdin: string,
  env: Record<string, string>,
  fast: boolean,
): Promise<Run> {
  await writeFile(nodeLog, '');
  const before = daemon.requests.length;
  const out = await new Promise<Omit<Run, 'node' | 'request'>>((resolve) => {
    const child = spawn(launcherPath(t.env), args, {
      env: { PATH: process.env.PATH ?? '', ...env, ...(fast ? {} : { AEP_HOOK_FAST: '0' }) },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(stdin);
  });
  const node = (await readFile(nodeLog, 'utf8')) !== '';
  const request = daemon.requests.slice(before).map((b) => b.toString('latin1'))[0];
  return { ...out, node, request };
}

/** Both paths on one case: the same request and output; returns the fast path's run. */
async function both(
  vendor: string,
  stdin: string,
  env: Record<string, string> = {},
  args: string[] = [vendor],
): Promise<{ fast: Run; node: Run }> {
  const fast = await launch(args, stdin, env, true);
  const node = await launch(args, stdin, env, false);
  expect(node.node, 'AEP_HOOK_FAST=0 runs the Node shim').toBe(true);
  expect(fast.request, 'the same request bytes').toBe(node.request);
  expect({ code: fast.code, stdout: fast.stdout }).toEqual({
    code: node.code,
    stdout: node.stdout,
  });
  return { fast, node };
}

beforeEach(async () => {
  t = await makeTestEnv({ runtime: { path: process.execPath, electron: false } });
  daemon = await startRawDaemon();
  for (const file of shimFiles(t.env)) {
    await mkdir(dirname(file.path), { recursive: true });
    await writeFile(file.path, file.text);
    await chmod(file.path, file.mode);
  }
  // The runtime the launcher records: a wrapper that notes each Node start.
  nodeLog = join(t.root, 'node-starts');
  const wrapper = join(t.root, 'node-wrapper');
  await writeFile(
    wrapper,
    `#!/bin/sh\necho started >> '${nodeLog}'\nexec '${process.execPath}' "$@"\n`,
  );
  await chmod(wrapper, 0o755);
  await writeFile(launcherPath(t.env), launcherScript({ path: wrapper, electron: false }));
  await writeFile(join(t.env.dataDir, 'hook-token'), `${TOKEN}\n`);
  await writeFile(join(t.env.dataDir, 'daemon.json'), JSON.stringify({ url: daemon.url, pid: 1 }));
});
afterEach(async () => {
  await daemon.close();
  await t.cleanup();
});

const PAYLOAD = JSON.stringify({
  hook_event_name: 'PreToolUse',
  session_id: 's1',
  tool_name: 'Bash',
  tool_input: { command: 'ls "é"' },
});
const STEER = '{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"use rg"}}';

/**
 * The script with its bash version tests forced false, so that it takes the paths written for bash
 * before 4.1 (macOS ships 3.2): stdin through cat, the reply read to a delimiter, whole seconds.
 */
function asBashBefore41(script: string): string {
  const tests = ['"${BASH_VERSINFO[0]}${BASH_VERSINFO[1]}" -ge 41', '"${BASH_VERSINFO[0]}" -ge 4'];
  let out = script;
  for (const test of tests) {
    expect(out).toContain(test);
    out = out.replaceAll(test, '0 -ge 1');
  }
  return out;
}

describe.skipIf(!existsSync(BASH))('the hook shim fast path', () => {
  describe.each([
    { variant: 'as bash 4.1 and later run it', before41: false },
    { variant: 'down the paths written for bash before 4.1', before41: true },
  ])('$variant', ({ before41 }) => {
    beforeEach(async () => {
      if (!before41) return;
      const file = join(t.env.dataDir, 'bin', 'aep-companion-hook.bash');
      await writeFile(file, asBashBefore41(await readFile(file, 'utf8')));
    });

    it('is written for the vendors of the tables, in bash that parses', async () => {
      const script = fastShimScript();
      expect(script.startsWith('#!/bin/bash\n')).toBe(true);
      expect(script).toContain("codex) empty='' held=' PermissionRequest '");
      const check = await new Promise<number | null>((resolve) => {
        const child = spawn(BASH, ['-n', join(t.env.dataDir, 'bin', 'aep-companion-hook.bash')]);
        child.on('close', resolve);
      });
      expect(check).toBe(0);
    });

    it('answers the ordinary hook without starting Node, as the Node shim does', async () => {
      daemon.answer = { raw: responseOf(200, STEER) };
      const { fast } = await both('claude-code', PAYLOAD);
      expect(fast).toMatchObject({ node: false, code: 0, stdout: STEER, stderr: '' });
      expect(fast.request).toBe(
        `POST /hooks/claude-code HTTP/1.1\r\nHost: ${new URL(daemon.url).host}\r\nContent-Type: application/json\r\n` +
          `Authorization: Bearer ${TOKEN}\r\nContent-Length: ${Buffer.byteLength(PAYLOAD)}\r\nConnection: close\r\n\r\n` +
          Buffer.from(PAYLOAD).toString('latin1'),
      );
    });

    it("prints the vendor's empty reply for an empty object, nothing at all for Codex", async () => {
      for (const body of ['{}', ' { \n } ', '']) {
        daemon.answer = { raw: responseOf(200, body) };
        expect((await both('qwen-code', PAYLOAD)).fast).toMatchObject({
          node: false,
          stdout: '{}',
        });
        expect((await both('codex', PAYLOAD)).fast).toMatchObject({ node: false, stdout: '' });
      }
    });

    it('reads chunked and to-the-end bodies, and fails open on a cut-off one', async () => {
      const half = STEER.length >> 1;
      daemon.answer = {
        raw: `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${half.toString(16)}\r\n${STEER.slice(0, half)}\r\n${(STEER.length - half).toString(16)};ext=1\r\n${STEER.slice(half)}\r\n0\r\n\r\n`,
      };
      expect((await both('claude-code', PAYLOAD)).fast).toMatchObject({
        node: false,
        stdout: STEER,
      });
      daemon.answer = { raw: `HTTP/1.0 200 OK\r\nConnection: close\r\n\r\n${STEER}` };
      expect((await both('vscode', PAYLOAD)).fast).toMatchObject({ node: false, stdout: STEER });
      daemon.answer = { raw: `HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n${STEER}` };
      expect((await both('vscode', PAYLOAD)).fast).toMatchObject({ node: false, stdout: '{}' });
      daemon.answer = { raw: `HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a":` };
      expect((await both('hermes', PAYLOAD)).fast).toMatchObject({ node: false, stdout: '{}' });
      daemon.answer = { raw: 'SSH-2.0-OpenSSH_9\r\n' };
      expect((await both('hermes', PAYLOAD)).fast).toMatchObject({ node: false, stdout: '{}' });
    });

    it('fails open on a refusal, a reply that is not a JSON object, and a daemon that is down', async () => {
      for (const raw of [
        responseOf(401, '{"error":"unauthorized"}'),
        responseOf(500, STEER),
        responseOf(200, 'oops'),
        responseOf(200, '[1]'),
      ]) {
        daemon.answer = { raw };
        expect((await both('claude-code', PAYLOAD)).fast).toMatchObject({
          node: false,
          code: 0,
          stdout: '{}',
        });
      }
      const url = await deadUrl();
      const down = await both('codex', PAYLOAD, { AEP_COMPANION_URL: url });
      expect(down.fast).toMatchObject({ node: false, code: 0, stdout: '', stderr: '' });
    });

    it("gives the doctor the Node shim's report, from the path hooks take", async () => {
      const answers: Array<RawDaemon['answer']> = [
        { raw: responseOf(200, STEER) },
        { raw: responseOf(200, '{}') },
        { raw: responseOf(204, '') },
        { raw: responseOf(401, '{"error":"unauthorized"}') },
        { raw: responseOf(200, 'oops') },
        { raw: responseOf(200, '[1]') },
        { raw: `HTTP/1.1 200 OK\r\nContent-Length: 500\r\n\r\n${STEER}` },
        { raw: 'SSH-2.0-OpenSSH_9\r\n\r\n' },
        { raw: '' },
        { raw: null },
      ];
      const env = { AEP_HOOK_DOCTOR: '1', AEP_INSTRUCT: '1', AEP_HOOK_TIMEOUT_MS: '1000' };
      for (const answer of answers) {
        daemon.answer = answer;
        const { fast, node } = await both('claude-code', PAYLOAD, env);
        expect(fast.node, answer.raw ?? 'no answer').toBe(false);
        expect(JSON.parse(fast.stderr), answer.raw ?? 'no answer').toEqual(JSON.parse(node.stderr));
      }
      const down = await both('codex', PAYLOAD, {
        AEP_HOOK_DOCTOR: '1',
        AEP_COMPANION_URL: await deadUrl(),
      });
      expect(JSON.parse(down.fast.stderr)).toEqual(JSON.parse(down.node.stderr));
      expect(down.fast.stderr).toContain('ECONNREFUSED');
    });

    it('carries the opt-ins, AEP_HOOK_TOKEN, AEP_COMPANION_URL and AEP_COMPANION_DATA_DIR', async () => {
      const other = await startRawDaemon();
      const saved = daemon;
      try {
        daemon = other;
        const run = await both('codex', '{"hook_event_name":"Stop"}', {
          AEP_INSTRUCT: '1',
          AEP_PERMISSIONS: '1',
          AEP_HOOK_TOKEN: 'env-token',
          AEP_COMPANION_URL: `${other.url}/ignored/path`,
        });
        expect(run.fast.node).toBe(false);
        expect(run.fast.request).toMatch(
          /^POST \/hooks\/codex\?instruct=1&permissions=1 HTTP\/1\.1\r\n/,
        );
        expect(run.fast.request).toContain('\r\nAuthorization: Bearer env-token\r\n');
        const permissionsOnly = await both('codex', '{}', {
          AEP_PERMISSIONS: '1',
          AEP_COMPANION_URL: other.url,
        });
        expect(permissionsOnly.fast.request).toMatch(/^POST \/hooks\/codex\?permissions=1 /);
        const elsewhere = join(t.root, 'elsewhere');
        await mkdir(elsewhere);
        await writeFile(join(elsewhere, 'daemon.json'), JSON.stringify({ url: other.url }));
        const viaDir = await both('cline', '{}', { AEP_COMPANION_DATA_DIR: elsewhere });
        expect(viaDir.fast.node).toBe(false);
        expect(viaDir.fast.request).not.toContain('Authorization');
      } finally {
        daemon = saved;
        await other.close();
      }
    });

    it('reads a payload of the limit in blocks and sends it whole', async () => {
      const base = '{"hook_event_name":"PostToolUse","tool_response":""}';
      const edge = `${base.slice(0, -2)}${'y'.repeat(DIRECT_WRITE_LIMIT - base.length)}"}`;
      expect(edge.length).toBe(DIRECT_WRITE_LIMIT);
      const { fast } = await both('claude-code', edge);
      expect(fast.node).toBe(false);
      expect(fast.request?.endsWith(`\r\n\r\n${edge}`)).toBe(true);
    });

    it('writes a larger payload from a child, and gives up on a daemon that stopped reading it', async () => {
      daemon.answer = { raw: responseOf(200, STEER) };
      const big = JSON.stringify({
        hook_event_name: 'PostToolUse',
        tool_response: 'x'.repeat(4 * DIRECT_WRITE_LIMIT),
      });
      const whole = await both('claude-code', big);
      expect(whole.fast).toMatchObject({ node: false, stdout: STEER });
      expect(whole.fast.request?.endsWith(`\r\n\r\n${big}`)).toBe(true);
      // Far more than the kernel buffers while nobody reads: only the deadline ends the write.
      daemon.answer = { raw: responseOf(200, STEER), stall: true };
      const huge = JSON.stringify({
        hook_event_name: 'PostToolUse',
        tool_response: 'x'.repeat(16 << 20),
      });
      const stalled = await both('claude-code', huge, { AEP_HOOK_TIMEOUT_MS: '1000' });
      expect(stalled.fast).toMatchObject({
        node: false,
        code: 0,
        stdout: '{}',
        request: undefined,
      });
    }, 30_000);

    it('sends garbage on stdin as it came, and an empty payload', async () => {
      expect((await both('claude-code', 'not json')).fast).toMatchObject({
        node: false,
        stdout: '{}',
      });
      expect((await both('claude-code', '')).fast.request).toMatch(
        /Content-Length: 0\r\nConnection: close\r\n\r\n$/,
      );
    });

    it('waits the held deadline only on a held moment with the permission opt-in', async () => {
      daemon.answer = { raw: responseOf(200, STEER), delayMs: 400 };
      const env = { AEP_PERMISSIONS: '1', AEP_HOOK_TIMEOUT_MS: '150' };
      expect((await both('claude-code', PAYLOAD, env)).fast).toMatchObject({
        node: before41,
        stdout: '{}',
      });
      daemon.answer = { raw: responseOf(200, STEER), delayMs: 5_500 };
      const held = JSON.stringify({ hook_event_name: 'PermissionRequest', session_id: 's1' });
      const [fastHeld, fastOrdinary] = await Promise.all([
        launch(['claude-code'], held, { AEP_PERMISSIONS: '1' }, true),
        launch(['qwen-code'], PAYLOAD, { AEP_PERMISSIONS: '1' }, true),
      ]);
      expect(fastHeld).toMatchObject({ node: false, stdout: STEER });
      expect(fastOrdinary).toMatchObject({ node: false, stdout: '{}' });
    }, 20_000);

    it('hands to the Node shim what it does not cover, before sending anything', async () => {
      daemon.answer = { raw: responseOf(200, STEER) };
      const twice =
        '{"hook_event_name":"PreToolUse","tool_input":{"hook_event_name":"PermissionRequest"}}';
      const cases: Array<[string, string, Record<string, string>, string[]?]> = [
        ['a moment named twice', twice, { AEP_PERMISSIONS: '1' }],
        ['a moment that is not a plain name', '{"hook_event_name":7}', { AEP_PERMISSIONS: '1' }],
        [
          'a host name',
          PAYLOAD,
          { AEP_COMPANION_URL: daemon.url.replace('127.0.0.1', 'localhost') },
        ],
        ['an odd deadline', PAYLOAD, { AEP_HOOK_TIMEOUT_MS: '1e4' }],
        ['a token a header cannot carry', PAYLOAD, { AEP_HOOK_TOKEN: 'tök' }],
        ['more arguments', PAYLOAD, {}, ['claude-code', '--data-dir', t.env.dataDir]],
        ['an unknown vendor', PAYLOAD, {}, ['nobody']],
      ];
      for (const [what, stdin, env, args] of cases) {
        const { fast } = await both(args?.[0] ?? 'claude-code', stdin, env, args);
        expect(fast.node, what).toBe(true);
      }
      await writeFile(
        join(t.env.dataDir, 'daemon.json'),
        `{"url":"${daemon.url.replace(/\//g, '\\/')}"}`,
      );
      expect((await both('claude-code', PAYLOAD)).fast).toMatchObject({
        node: true,
        stdout: STEER,
      });
      const tls = (await deadUrl()).replace('http:', 'https:');
      await writeFile(join(t.env.dataDir, 'daemon.json'), JSON.stringify({ url: tls }));
      expect((await both('claude-code', PAYLOAD)).fast).toMatchObject({ node: true, stdout: '{}' });
    });

    it('reaches a daemon on [::1]', async () => {
      let v6: RawDaemon;
      try {
        v6 = await startRawDaemon('::1');
      } catch {
        return; // no IPv6 loopback on this machine
      }
      const saved = daemon;
      try {
        daemon = v6;
        v6.answer = { raw: responseOf(200, STEER) };
        const run = await both('claude-code', PAYLOAD, { AEP_COMPANION_URL: v6.url });
        expect(run.fast).toMatchObject({ node: false, stdout: STEER });
      } finally {
        daemon = saved;
        await v6.close();
      }
    });
  });
});
