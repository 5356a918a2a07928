/**
 * kill -9 of `serve` while a launched session runs: after a restart the session shows ended (or
 * resumable where the agent advertised loadSession) with the reason, and no agent process from the
 * old daemon is left (the mock agents here ignore stdin EOF, so only the restart can end them).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ready, spawnServe, type ServeChild } from './serve-process';

const MOCK = fileURLToPath(new URL('../../support/mock-acp-agent.mjs', import.meta.url));
const children: ServeChild[] = [];
const pids: number[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Gone, as it should be.
    }
  }
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

type Json = Record<string, unknown>;

describe('serve crash with launched sessions', () => {
  it('after kill -9 and a restart: sessions ended / resumable with the reason, no leftover agent process', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aep-launch-crash-'));
    dirs.push(root);
    const dataDir = join(root, 'data');
    const cwd = mkdtempSync(join(root, 'cwd-'));
    const first = spawnServe(['--port', '0', '--data-dir', dataDir]);
    children.push(first);
    const url = await ready(first);
    const token = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();
    const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Json & Json[] }> => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as Json & Json[] };
    };
    const patched = await api('PATCH', '/api/settings', {
      'agents.qwen-code.command': [process.execPath, MOCK, '--ignore-eof', '--turn-delay=600000'],
      'agents.gemini-cli.command': [process.execPath, MOCK, '--ignore-eof', '--turn-delay=600000', '--no-load'],
    });
    expect(patched.status, JSON.stringify(patched.json)).toBe(200);
    const a = await api('POST', '/api/launch', { agent: 'qwen-code', cwd, prompt: 'work for a long time' });
    const b = await api('POST', '/api/launch', { agent: 'gemini-cli', cwd, prompt: 'work for a long time' });
    expect(a.status).toBe(200);
    expect(b.status).toBe(200);
    const before = (await api('GET', '/api/launched')).json;
    const agentPids = before.map((r) => r.pid as number);
    expect(agentPids.every((p) => typeof p === 'number' && alive(p))).toBe(true);
    pids.push(...agentPids);

    first.child.kill('SIGKILL');
    await first.exited;
    // The stubborn agents outlived their daemon.
    expect(agentPids.every(alive)).toBe(true);

    const second = spawnServe(['--port', '0', '--data-dir', dataDir]);
    children.push(second);
    const url2 = await ready(second);
    const res = await fetch(`${url2}/api/launched`, { headers: { authorization: `Bearer ${token}` } });
    const after = (await res.json()) as Json[];
    const byAgent = Object.fromEntries(after.map((r) => [r.agent as string, r]));
    expect(byAgent['qwen-code']).toMatchObject({ session: a.json.session, state: 'resumable', pid: null, endReason: expect.stringMatching(/daemon stopped unexpectedly.*agent process was ended/) });
    expect(byAgent['gemini-cli']).toMatchObject({ session: b.json.session, state: 'ended', endReason: expect.stringMatching(/daemon stopped unexpectedly/) });
    for (const pid of agentPids) {
      for (let i = 0; i < 100 && alive(pid); i++) await new Promise((r) => setTimeout(r, 50));
      expect(alive(pid), `agent pid ${pid} left behind`).toBe(false);
    }
    const audit = await fetch(`${url2}/api/audit?action=agent.reconciled`, { headers: { authorization: `Bearer ${token}` } });
    expect(((await audit.json()) as { rows: Json[] }).rows).toHaveLength(2);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
