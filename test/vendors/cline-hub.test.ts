/**
 * The real Cline CLI 3.0.65 (pinned in vendor-clis.ts) against the model-API stub calling its
 * `run_commands` tool, with hooks written by our installer and the companion's `serve`:
 * - a default install, then a real `cline` run → its session on the AEP stream with run and tool events;
 * - opted in (`--instruct`), a steer sent through the hub while a model call is held → the text is in
 *   the next model request, and the input settles `steered`;
 * - `control.cancel` → the hub's `run.abort` → `run.cancelled` cause-linked to the command.
 * The CLI runs in hub mode (no --data-dir) against a hub the test starts on a free port in the temp HOME.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clineHubDiscoveryPath } from '../../common/cline';
import { command, Consumer } from '../core/hooks/hooks-harness';
import {
  buildCompanionCli,
  startCompanion,
  type Companion,
  type CompanionCli,
} from '../support/companion';
import { clineToolResults, isClineChat, startClineStub } from '../support/model-stubs/cline-stub';
import { requestContains, type StubServer } from '../support/model-stubs/stub-server';
import { makeTempHome, removeTempDir } from '../support/run-vendor';
import { ensureVendorCli } from '../support/vendor-clis';

interface Run {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

let bin: string;
let home: string;
let cli: CompanionCli;
let companion: Companion;
let stub: StubServer;
let socket: Consumer;

const env = (): Record<string, string> => ({ PATH: process.env.PATH ?? '', HOME: home });

/** Runs the cline binary in the temp HOME (bounded; the process group is killed on timeout). */
function cline(args: readonly string[], timeoutMs = 120_000): { done: Promise<Run>; kill(): void } {
  const child = spawn(bin, [...args], {
    env: env(),
    cwd: join(home, 'work'),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const kill = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  };
  const timer = setTimeout(kill, timeoutMs);
  const done = new Promise<Run>((resolve) =>
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  );
  return { done, kill };
}

const seen = new Set<string>();
/** The next Cline session to start on the stream. */
const nextSession = async (): Promise<string> => {
  const e = await socket.event(
    (x) => x.agent === 'cline' && x.type === 'session.started' && !seen.has(x.session as string),
  );
  seen.add(e.session as string);
  return e.session as string;
};

const declared = async (session: string): Promise<void> => {
  for (let i = 0; i < 600; i++) {
    const entry = (await socket.roster()).find((e) => e.session === session);
    if (
      ((entry?.control as { accepts?: string[] } | undefined)?.accepts ?? []).includes(
        'x.cline.control.send_input',
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(
    `the Cline session ${session} never declared x.cline.control.send_input:\n${companion.output().slice(-3000)}`,
  );
};

beforeAll(async () => {
  bin = (await ensureVendorCli('cline')).bin;
  home = await makeTempHome('aep-cline-');
  cli = await buildCompanionCli();
  const saved = process.env.HOME;
  // The daemon's installer host reads the hub discovery file from HOME: the temp one.
  process.env.HOME = home;
  try {
    companion = await startCompanion(cli, join(home, 'companion-data'));
  } finally {
    process.env.HOME = saved;
  }
  await companion.api('PUT', '/api/steering', { enabled: true, surface: 'console' });
  socket = await Consumer.open(companion.url, companion.tokens.operator);
  // One stub for the whole file: shell, shell, then text.
  stub = await startClineStub([
    { shell: 'echo one' },
    { shell: 'echo two' },
    { text: 'All done.' },
  ]);
  const auth = await cline([
    'auth',
    '-p',
    'openai-compatible',
    '-k',
    'stub-key',
    '-m',
    'stub-model',
    '-b',
    `${stub.url}/v1`,
  ]).done;
  expect(auth.code, auth.stderr).toBe(0);
  // `hub start` waits 15 s for the detached hub; on a loaded machine it can take longer: wait for its status.
  const hub = await cline(['hub', 'start', '--port', '0']).done;
  for (let i = 0; ; i++) {
    const status = await cline(['hub', 'status'], 30_000).done;
    if (/"running":\s*true/.test(status.stdout)) break;
    if (i >= 20)
      throw new Error(
        `the Cline hub did not start: ${hub.stderr} ${status.stdout} ${status.stderr}`,
      );
    await new Promise((r) => setTimeout(r, 1000));
  }
}, 600_000);

afterAll(async () => {
  await cline(['hub', 'stop'], 30_000).done.catch(() => undefined);
  try {
    const pid = (JSON.parse(readFileSync(clineHubDiscoveryPath(home), 'utf8')) as { pid?: number })
      .pid;
    if (pid) process.kill(pid, 'SIGKILL');
  } catch {
    // Stopped already.
  }
  socket?.close();
  await companion?.stop();
  await stub?.close();
  await cli?.dispose();
  await removeTempDir(home);
}, 120_000);

describe('Cline 3.0.65 with the companion', () => {
  it('default install: a real run shows up as a session with run and tool events', async () => {
    const installed = await companion.runCli(['install', '--vendor', 'cline'], {
      env: { HOME: home },
    });
    expect(installed.code, installed.stderr).toBe(0);
    const run = await cline(['--json', '-c', join(home, 'work'), 'run echo hello']).done;
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const session = await nextSession();
    const types = async () =>
      socket
        .events()
        .filter((e) => e.session === session)
        .map((e) => e.type);
    await socket.event((e) => e.session === session && e.type === 'run.finished');
    expect(await types()).toEqual(
      expect.arrayContaining([
        'session.started',
        'run.started',
        'tool.requested',
        'tool.completed',
        'run.finished',
      ]),
    );
    const tool = socket.events().find((e) => e.session === session && e.type === 'tool.requested');
    expect(tool?.subject).toBe('run_commands');
    // Not opted in: no Cline verb is declared.
    const entry = (await socket.roster()).find((e) => e.session === session);
    expect((entry?.control as { accepts?: string[] } | undefined)?.accepts ?? []).toEqual([]);
  }, 240_000);

  it('opted in: a steer sent through the hub during a held model call is in the next model request', async () => {
    const installed = await companion.runCli(['install', '--vendor', 'cline', '--instruct'], {
      env: { HOME: home },
    });
    expect(installed.code, installed.stderr).toBe(0);
    const from = stub.requests.length;
    const hold = stub.hold((q) => q.index >= from && isClineChat(q) && clineToolResults(q) === 1);
    const running = cline(['--json', '-c', join(home, 'work'), 'run echo hello']);
    try {
      const held = await hold.reached;
      const session = await nextSession();
      await declared(session);
      const text = `STEER-VENDOR-MARKER ${Date.now()}`;
      const cmd = command(
        'x.cline.control.send_input',
        session,
        { text, delivery: 'steer' },
        { capture: 'redacted' },
      );
      socket.send(cmd);
      const ack = await socket.event((e) => e.cause === cmd.id && e.type.startsWith('control.'));
      expect(ack.type, JSON.stringify(ack)).toBe('control.accepted');
      expect(held.raw).not.toContain(text);
      hold.release();
      const carrying = await stub.waitForRequest(
        (q) => isClineChat(q) && requestContains(q, text),
        { fromIndex: held.index + 1, timeoutMs: 60_000 },
      );
      expect(carrying.index).toBeGreaterThan(held.index);
      const settled = await socket.event(
        (e) => e.type === 'x.cline.input.settled' && e.cause === cmd.id,
      );
      expect(settled.data).toMatchObject({ outcome: 'steered' });
    } finally {
      hold.release();
      await running.done;
    }
  }, 240_000);

  it('control.cancel aborts the run through the hub: run.cancelled cause-linked to the command', async () => {
    const from = stub.requests.length;
    const hold = stub.hold((q) => q.index >= from && isClineChat(q) && clineToolResults(q) === 1);
    const running = cline(['--json', '-c', join(home, 'work'), 'run echo hello']);
    try {
      await hold.reached;
      const session = await nextSession();
      await declared(session);
      const cmd = command('control.cancel', session, { scope: 'run' });
      socket.send(cmd);
      const ack = await socket.event((e) => e.cause === cmd.id && e.type.startsWith('control.'));
      expect(ack.type, JSON.stringify(ack)).toBe('control.accepted');
      const cancelled = await socket.event(
        (e) => e.session === session && e.type === 'run.cancelled',
      );
      expect(cancelled).toMatchObject({ cause: cmd.id, data: { by: 'control' } });
    } finally {
      hold.release();
      await running.done;
    }
  }, 240_000);
});
