/**
 * Issue 12: a hook reply is sent only after the hook's events are committed. A burst of hooks
 * against a real `serve` child, SIGKILL from inside the handler of a reply, restart: every hook
 * whose reply was received is in the store (0 lost), with its session row.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { ready, spawnServe, type ServeChild } from '../serve/serve-process';

const children: ServeChild[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/**
 * POSTs one Claude Code hook; resolves with the status, or null when the daemon died first. `onReply`
 * runs inside the response handler. With `sized` the body goes with a `Content-Length`, else chunked.
 */
function postHook(url: string, token: string, agent: Agent, payload: unknown, sized: boolean, onReply: (status: number) => void): Promise<number | null> {
  return new Promise((resolve) => {
    const target = new URL('/hooks/claude-code', url);
    const body = JSON.stringify(payload);
    const headers: Record<string, string | number> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (sized) headers['content-length'] = Buffer.byteLength(body);
    const req = request(target, { method: 'POST', agent, headers }, (res) => {
      res.resume();
      res.on('end', () => {
        onReply(res.statusCode ?? 0);
        resolve(res.statusCode ?? 0);
      });
      res.on('error', () => resolve(null));
    });
    req.on('error', () => resolve(null));
    req.end(body);
  });
}

/** A `serve` child on a fresh data directory: the directory, the child, its URL and its hook token. */
async function startServe(): Promise<{ dataDir: string; s: ServeChild; url: string; token: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'aep-hook-crash-'));
  dirs.push(dir);
  const dataDir = join(dir, 'data');
  const s = spawnServe(['--port', '0', '--data-dir', dataDir]);
  children.push(s);
  const url = await ready(s);
  const token = readFileSync(join(dataDir, 'hook-token'), 'utf8').trim();
  return { dataDir, s, url, token };
}

/** Starts `serve` on `dataDir` again (it recovers what the killed run left) and stops it cleanly. */
async function restartAndStop(dataDir: string): Promise<void> {
  const again = spawnServe(['--port', '0', '--data-dir', dataDir]);
  children.push(again);
  await ready(again);
  again.child.kill('SIGTERM');
  await again.exited;
}

describe('hook replies are durable', () => {
  it.each([
    ['sized bodies', true],
    ['chunked bodies', false],
  ])('loses no hook whose reply was sent when the daemon is killed with SIGKILL inside a reply handler (%s)', async (_way, sized) => {
    const { dataDir, s, url, token } = await startServe();
    const agent = new Agent({ keepAlive: true, maxSockets: 16 });
    const replied: string[] = [];
    const burst = 320;
    const killAt = 240;
    let next = 0;
    // 16 concurrent posters; each hook opens its own session, so its events are findable by session.
    const posters = Array.from({ length: 16 }, async () => {
      while (next < burst) {
        const session = `burst-${next++}`;
        const status = await postHook(url, token, agent, { hook_event_name: 'UserPromptSubmit', session_id: session, cwd: '/work', prompt: 'go' }, sized, (code) => {
          if (code !== 200) return;
          replied.push(session);
          // The kill happens inside the handler of this reply, while others are in flight.
          if (replied.length === killAt) s.child.kill('SIGKILL');
        });
        if (status === null) return;
      }
    });
    await Promise.all(posters);
    agent.destroy();
    expect(await s.exited).toBe('SIGKILL');
    expect(replied.length).toBeGreaterThanOrEqual(killAt);

    // Restart on the same data directory (the lock died with the process), then read the store.
    await restartAndStop(dataDir);
    const db = new BetterSqlite3(join(dataDir, 'companion.db'), { readonly: true });
    let stored: Set<string>;
    try {
      stored = new Set((db.prepare(`SELECT DISTINCT session FROM events WHERE session LIKE 'burst-%'`).all() as { session: string }[]).map((r) => r.session));
    } finally {
      db.close();
    }
    expect(replied.filter((session) => !stored.has(session))).toEqual([]);
  });

  it('loses no call answered just before the daemon is killed, nor its session row', async () => {
    const { dataDir, s, url, token } = await startServe();
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const replied: string[] = [];
    // Calls one after the other; the kill comes inside the last reply's handler.
    for (const session of ['taken-1', 'taken-2', 'taken-3']) {
      const last = session === 'taken-3';
      await postHook(url, token, agent, { hook_event_name: 'SessionStart', session_id: session, cwd: '/work', source: 'startup' }, true, (code) => {
        if (code !== 200) return;
        replied.push(session);
        if (last) s.child.kill('SIGKILL');
      });
    }
    agent.destroy();
    expect(await s.exited).toBe('SIGKILL');
    expect(replied).toEqual(['taken-1', 'taken-2', 'taken-3']);

    await restartAndStop(dataDir);
    const db = new BetterSqlite3(join(dataDir, 'companion.db'), { readonly: true });
    try {
      const stored = (db.prepare(`SELECT DISTINCT session FROM events WHERE session LIKE 'taken-%' ORDER BY session`).all() as { session: string }[]).map((r) => r.session);
      expect(stored).toEqual(replied);
      const sessions = (db.prepare(`SELECT session FROM sessions WHERE session LIKE 'taken-%' ORDER BY session`).all() as { session: string }[]).map((r) => r.session);
      expect(sessions).toEqual(replied);
    } finally {
      db.close();
    }
  });
});
