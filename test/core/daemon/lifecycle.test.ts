/**
 * The daemon's start and stop order (issue 8 §2–§3): the data directory's lock and daemon.json,
 * routes registered before the listener binds, and a drain that decides every admitted command and
 * commits every terminal before the subscriptions close.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonStartError, startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import type { DaemonContext } from '../../../main/core/daemon-context';
import { createHooksFeature } from '../../../main/core/hooks/hooks-feature';
import { ccPayload, command, Consumer, ManualScheduler, postHook, startHooksDaemon, TestClock } from '../hooks/hooks-harness';

const dirs: string[] = [];
const running: DaemonHandle[] = [];
afterEach(async () => {
  for (const d of running.splice(0)) await d.close();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const dataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'aep-lifecycle-'));
  dirs.push(dir);
  return join(dir, 'data');
};
const start = async (dir: string, extra: Partial<Parameters<typeof startDaemon>[0]> = {}): Promise<DaemonHandle> => {
  const d = await startDaemon({ dataDir: dir, port: 0, baseFeatures: [], ...extra });
  running.push(d);
  return d;
};
const freePort = (): Promise<number> =>
  new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number };
      s.close(() => resolve(port));
    });
  });
const rows = <T>(dir: string, sql: string): T[] => {
  const db = new BetterSqlite3(join(dir, 'companion.db'), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
};

describe('the data directory lock and daemon.json', () => {
  it('refuses a second daemon on the same data directory with one line naming the first one’s pid and URL', async () => {
    const dir = dataDir();
    const first = await start(dir);
    const second = startDaemon({ dataDir: dir, port: 0, baseFeatures: [] });
    await expect(second).rejects.toBeInstanceOf(DaemonStartError);
    const error = (await second.catch((e: unknown) => e)) as DaemonStartError;
    expect(error.code).toBe('locked');
    expect(error.message).toContain(`pid ${process.pid}`);
    expect(error.message).toContain(first.url);
    expect(error.message.split('\n')).toHaveLength(1);
    // The first one is untouched, and once it stopped the directory is free again.
    expect(JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8'))).toEqual({ url: first.url, pid: process.pid });
    await running.pop()!.close();
    expect(existsSync(join(dir, 'daemon.json'))).toBe(false);
    const again = await start(dir);
    expect(JSON.parse(readFileSync(join(dir, 'daemon.json'), 'utf8'))).toEqual({ url: again.url, pid: process.pid });
  });

  it('registers every route before the listener binds: nothing is served (no 404) until the features are in', async () => {
    const port = await freePort();
    let during: { url: string; answer: string } | undefined;
    const probe = async (ctx: DaemonContext) => {
      // A hook arriving while the features start must find no listener, never a route table without /hooks.
      const answer = await fetch(`http://127.0.0.1:${port}/hooks/claude-code`, { method: 'POST', body: '{}' }).then(
        (r) => `HTTP ${r.status}`,
        () => 'refused',
      );
      during = { url: ctx.url, answer };
      return () => undefined;
    };
    const d = await start(dataDir(), { port, baseFeatures: [probe, createHooksFeature({ sweepEveryMs: 0 })] });
    expect(during).toEqual({ url: '', answer: 'refused' });
    expect(d.context.url).toBe(`http://127.0.0.1:${port}`);
    const reply = await postHook(d.url, d.tokens.hook, 'claude-code', ccPayload('SessionStart', 's1'));
    expect(reply.status).toBe(200);
  });
});

describe('the drain', () => {
  it('decides every command admitted during shutdown and commits its ack before the closing frame', async () => {
    const d = await startHooksDaemon({ dataDir: dataDir(), clock: new TestClock() });
    const { operator, hook } = d.daemon.tokens;
    await fetch(`${d.url}/api/steering`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${operator}`, 'content-type': 'application/json' },
      body: JSON.stringify({ enabled: true }),
    });
    await postHook(d.url, hook, 'claude-code', ccPayload('SessionStart', 's1'), { instruct: true });
    const c = await Consumer.open(d.url, operator);
    const sent = Array.from({ length: 12 }, (_, i) => command('x.claude-code.control.instruct', 's1', { text: `t${i}` }));
    for (const cmd of sent) c.send(cmd);
    // Close once the relay has routed the first of them: the rest are admitted during the drain.
    while (d.daemon.context.audit.query({ action: 'control.routed' }).rows.length === 0) await new Promise((r) => setImmediate(r));
    await d.close();
    const closingAt = c.frames.findIndex((f) => f.type === 'closing');
    expect(closingAt).toBeGreaterThan(-1);
    const heard = c.frames.slice(0, closingAt).filter((f) => f.type === 'control.accepted' || f.type === 'control.rejected');
    const stored = rows<{ id: string }>(d.dataDir, `SELECT id FROM events WHERE type = 'x.claude-code.control.instruct'`).map((r) => r.id);
    const acks = rows<{ cause: string; type: string }>(d.dataDir, `SELECT cause, type FROM events WHERE type IN ('control.accepted', 'control.rejected')`);
    expect(stored.length).toBeGreaterThan(0);
    // Every stored command has exactly one ack, committed, and heard before the closing frame.
    for (const id of stored) {
      expect(acks.filter((a) => a.cause === id)).toHaveLength(1);
      expect(heard.filter((f) => f.cause === id)).toHaveLength(1);
    }
    // No ack for a command that was never stored.
    expect(acks.every((a) => stored.includes(a.cause))).toBe(true);
    // Late ones are nacked with a clear reason rather than left undecided.
    for (const f of heard.filter((h) => h.type === 'control.rejected')) expect(f.data).toEqual({ reason: 'busy', detail: 'the daemon is shutting down' });
    c.close();
  });

  it('emits the terminal of a permission hook held at shutdown (dismissed) before the closing frame, and frees the hook', async () => {
    const d = await startHooksDaemon({ dataDir: dataDir(), clock: new TestClock(), scheduler: new ManualScheduler() });
    const c = await Consumer.open(d.url, d.daemon.tokens.operator);
    const held = postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('PermissionRequest', 's1', { tool_name: 'Bash', tool_input: { command: 'ls' } }), {
      permissions: true,
    });
    const request = await c.event((e) => e.type === 'attention.requested');
    await d.close();
    expect((await held).json).toEqual({});
    const closingAt = c.frames.findIndex((f) => f.type === 'closing');
    const resolved = c.frames.findIndex((f) => f.type === 'attention.resolved' && f.subject === request.id);
    expect(resolved).toBeGreaterThan(-1);
    expect(resolved).toBeLessThan(closingAt);
    expect(c.frames[resolved].data).toMatchObject({ resolution: 'dismissed' });
    expect(rows<{ n: number }>(d.dataDir, `SELECT COUNT(*) AS n FROM events WHERE type = 'attention.resolved'`)[0].n).toBe(1);
    c.close();
  });
});
