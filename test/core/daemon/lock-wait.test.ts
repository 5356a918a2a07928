/**
 * Start races on the data directory's lock: a daemon starting while a CLI command holds the
 * directory for a moment waits it out; a holder that stays is named truthfully (a command with its
 * pid, a running daemon with its pid and URL), and a pid whose process is gone is never named.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { steering } from '../../../main/cli/commands/steering';
import { ClaimError, claimDataDir } from '../../../main/core/daemon-record';
import { ready, spawnServe, type ServeChild } from '../serve/serve-process';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const holdChild = fileURLToPath(new URL('./fixtures/hold-lock.ts', import.meta.url));

const dirs: string[] = [];
const children: ChildProcess[] = [];
const serves: ServeChild[] = [];
afterEach(() => {
  for (const c of [...children.splice(0), ...serves.splice(0).map((s) => s.child)])
    if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const dataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'aep-lock-wait-'));
  dirs.push(dir);
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  return data;
};

/** A child holding the lock (see fixtures/hold-lock.ts); resolves once it holds it, with its pid and a release. */
async function holder(dir: string, mode: 'command' | 'silent'): Promise<{ pid: number; release: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', holdChild, dir, mode], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  children.push(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  let out = '';
  await new Promise<void>((resolve, reject) => {
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
      if (out.includes('\n')) resolve();
    });
    child.once('exit', () => reject(new Error(`holder exited: ${out}`)));
  });
  const m = /^held (\d+)$/m.exec(out);
  if (!m) throw new Error(`holder said: ${out}`);
  return {
    pid: Number(m[1]),
    release: async () => {
      child.stdin!.end('go\n');
      await exited;
    },
  };
}

/** The pid of a process that has exited. */
const deadPid = (): number => spawnSync(process.execPath, ['-e', '0']).pid!;

describe('a daemon starting while the data directory is held', () => {
  it('waits while a command holds the directory, and takes it once the command is done', async () => {
    const dir = dataDir();
    const cmd = await holder(dir, 'command');
    const seen: string[] = [];
    const claimed = claimDataDir(dir, {
      waitMs: 600_000,
      onWait: (h) => {
        seen.push(`${h.command} ${h.pid}`);
        if (seen.length === 1) void cmd.release();
      },
    });
    const claim = await claimed;
    expect(seen[0]).toBe(`steering off ${cmd.pid}`);
    expect(JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8'))).toEqual({ pid: process.pid });
    claim.release();
  });

  it('names the command and its pid when the hold outlasts the wait, not the dead daemon an old daemon.json names', async () => {
    const dir = dataDir();
    const dead = deadPid();
    writeFileSync(join(dir, 'daemon.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: dead }));
    const cmd = await holder(dir, 'command');
    const error = (await claimDataDir(dir, { waitMs: 200 }).catch((e: unknown) => e)) as ClaimError;
    expect(error).toBeInstanceOf(ClaimError);
    expect(error.code).toBe('locked');
    expect(error.message).toContain(`the command \`aep-companion steering off\` (pid ${cmd.pid})`);
    expect(error.message).not.toContain('another daemon');
    expect(error.message.split('\n')).toHaveLength(1);
  });

  it('never names a pid whose process is gone: a holder that recorded nothing is said to be one', async () => {
    const dir = dataDir();
    const dead = deadPid();
    await holder(dir, 'silent');
    writeFileSync(join(dir, 'daemon.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: dead }));
    const error = (await claimDataDir(dir, { waitMs: 200 }).catch((e: unknown) => e)) as ClaimError;
    expect(error.code).toBe('locked');
    expect(error.message).not.toContain(String(dead));
    expect(error.message).not.toContain('another daemon');
    expect(error.message).toContain('recorded nothing');
    // The CLI says the same when it cannot take the directory.
    const outcome = await steering(dir, true, {});
    expect(outcome.code).toBe(1);
    expect(outcome.message).not.toContain(String(dead));
    expect(outcome.message).toContain('recorded nothing');
  });

  it('`serve` started while `steering off` holds the directory says it waits, and serves once the command is done', async () => {
    const dir = dataDir();
    const cmd = await holder(dir, 'command');
    const s = spawnServe(['--port', '0', '--data-dir', dir]);
    serves.push(s);
    while (!s.stderr.includes('waiting for')) {
      const gone = await Promise.race([s.exited, new Promise((r) => s.child.stderr!.once('data', () => r(null)))]);
      if (gone !== null) throw new Error(`serve exited (${String(gone)}): ${s.stderr}`);
    }
    expect(s.stderr).toContain(`the command \`aep-companion steering off\` (pid ${cmd.pid})`);
    await cmd.release();
    const url = await ready(s);
    expect(JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8'))).toEqual({ url, pid: s.child.pid });
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  });
});
