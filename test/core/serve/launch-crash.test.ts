/**
 * kill -9 of `serve` while a launched session runs: after a restart the session shows ended (or
 * resumable where the agent advertised loadSession) with the reason, and no agent process from the
 * old daemon is left (the mock agents here ignore stdin EOF, so only the restart can end them).
 * The turn each session had running is ended in the record: `run.failed` (daemon-stopped), caused
 * by its `run.started`, before `session.ended`, in the new epoch, and the stream stays valid AEP.
 * A tool call the turn left open is settled before it: `tool.failed` (daemon-stopped), caused by its
 * `tool.requested`; a tool call that completed is left as it was.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { validateStream } from '../../../main/core/aep/stream-checker';
import { startServe, streamUntil } from './crash-rig';
import type { ServeChild } from './serve-process';

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

const has = (events: readonly AepEvent[], session: unknown, type: string): boolean => events.some((e) => e.session === session && e.type === type);

describe('serve crash with launched sessions', () => {
  it('after kill -9 and a restart: sessions ended / resumable with the reason, no leftover agent process', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aep-launch-crash-'));
    dirs.push(root);
    const dataDir = join(root, 'data');
    const cwd = mkdtempSync(join(root, 'cwd-'));
    const { serve: first, url, operator: token } = await startServe(dataDir, children);
    const api = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: Json & Json[] }> => {
      const res = await fetch(`${url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
      return { status: res.status, json: (await res.json()) as Json & Json[] };
    };
    const patched = await api('PATCH', '/api/settings', {
      'agents.qwen-code.command': [process.execPath, MOCK, '--ignore-eof', '--turn-delay=600000', '--tool-delay=600000'],
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
    // Both turns are running in the record when the daemon dies: qwen-code's tool call still open, gemini-cli's completed.
    await streamUntil(url, token, (events) => has(events, a.json.session, 'tool.requested') && has(events, b.json.session, 'tool.completed'));

    first.child.kill('SIGKILL');
    await first.exited;
    // The stubborn agents outlived their daemon.
    expect(agentPids.every(alive)).toBe(true);

    const { serve: second, url: url2 } = await startServe(dataDir, children);
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

    const events = await streamUntil(url2, token, (all) => has(all, a.json.session, 'session.ended') && has(all, b.json.session, 'session.ended'));
    for (const session of [a.json.session, b.json.session]) {
      const own = events.filter((e) => e.session === session);
      const started = own.filter((e) => e.type === 'run.started');
      expect(started).toHaveLength(1);
      const terminals = own.filter((e) => ['run.finished', 'run.failed', 'run.cancelled'].includes(e.type));
      expect(terminals).toHaveLength(1);
      const failed = terminals[0];
      expect(failed).toMatchObject({
        type: 'run.failed',
        run: started[0].run,
        cause: started[0].id,
        severity: 'error',
        data: { reason: 'daemon-stopped', error: { type: 'daemon-stopped', message: expect.stringMatching(/daemon stopped unexpectedly while the turn ran/) } },
      });
      const requested = own.filter((e) => e.type === 'tool.requested');
      expect(requested).toHaveLength(1);
      const settled = own.filter((e) => ['tool.completed', 'tool.failed'].includes(e.type));
      expect(settled).toHaveLength(1);
      if (session === a.json.session) {
        // The open tool call fails with the run, just before it, caused by its request.
        expect(settled[0]).toMatchObject({
          type: 'tool.failed',
          subject: requested[0].subject,
          run: started[0].run,
          cause: requested[0].id,
          epoch: failed.epoch,
          seq: (failed.seq as number) - 1,
          data: { tool: { name: 'echo mock', call_id: requested[0].subject }, error: { type: 'daemon-stopped', message: expect.stringMatching(/daemon stopped unexpectedly while the turn ran/) } },
        });
      } else {
        expect(settled[0]).toMatchObject({ type: 'tool.completed', epoch: started[0].epoch });
      }
      const ended = own.filter((e) => e.type === 'session.ended');
      expect(ended).toHaveLength(1);
      // The new daemon's epoch: run.failed first, session.ended right after it.
      expect(failed.epoch as number).toBeGreaterThan(started[0].epoch as number);
      expect(ended[0]).toMatchObject({ epoch: failed.epoch, seq: (failed.seq as number) + 1 });
      expect(own.indexOf(failed)).toBeLessThan(own.indexOf(ended[0]));
      const verdict = validateStream(own);
      expect(verdict.ok, verdict.ok ? '' : verdict.error.message).toBe(true);
    }
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });

  it('a permission card open at kill -9 is dismissed after the restart, before the run fails and the session ends', async () => {
    const root = mkdtempSync(join(tmpdir(), 'aep-launch-crash-'));
    dirs.push(root);
    const dataDir = join(root, 'data');
    const cwd = mkdtempSync(join(root, 'cwd-'));
    const { serve: first, url, operator: token } = await startServe(dataDir, children);
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const patched = await fetch(`${url}/api/settings`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ 'agents.qwen-code.command': [process.execPath, MOCK, '--ignore-eof', '--mode=permission'] }),
    });
    expect(patched.status).toBe(200);
    const launched = await fetch(`${url}/api/launch`, { method: 'POST', headers, body: JSON.stringify({ agent: 'qwen-code', cwd, prompt: 'needs permission' }) });
    const session = ((await launched.json()) as Json).session;
    const pid = ((await (await fetch(`${url}/api/launched`, { headers })).json()) as Json[])[0].pid as number;
    pids.push(pid);
    await streamUntil(url, token, (events) => has(events, session, 'attention.requested'));
    first.child.kill('SIGKILL');
    await first.exited;

    const { serve: second, url: url2 } = await startServe(dataDir, children);
    const own = (await streamUntil(url2, token, (all) => has(all, session, 'session.ended'))).filter((e) => e.session === session);
    const card = own.find((e) => e.type === 'attention.requested') as AepEvent;
    const closing = own.filter((e) => e.subject === card.id && (e.type === 'attention.resolved' || e.type === 'attention.timeout'));
    expect(closing).toHaveLength(1);
    expect(closing[0]).toMatchObject({ type: 'attention.resolved', cause: card.id, data: { resolution: 'dismissed' } });
    const failed = own.find((e) => e.type === 'run.failed') as AepEvent;
    const ended = own.find((e) => e.type === 'session.ended') as AepEvent;
    expect(own.indexOf(closing[0])).toBeLessThan(own.indexOf(failed));
    expect(own.indexOf(failed)).toBeLessThan(own.indexOf(ended));
    const verdict = validateStream(own);
    expect(verdict.ok, verdict.ok ? '' : verdict.error.message).toBe(true);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  });
});
