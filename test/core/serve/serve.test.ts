import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { http, makeEvent, postEvents, SseClient, WsClient } from '../relay/harness';
import { ready, spawnServe, type ServeChild } from './serve-process';

const children: ServeChild[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const c of children.splice(0))
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'aep-serve-'));
  dirs.push(dir);
  return dir;
};
const serve = (args: string[]): ServeChild => {
  const s = spawnServe(args);
  children.push(s);
  return s;
};

describe('aep-companion serve', () => {
  it('prints the listening line and the console URL, records daemon.json, and drains on SIGTERM with exit 0', async () => {
    const dataDir = join(tempDir(), 'data');
    const s = serve(['--port', '0', '--data-dir', dataDir]);
    const url = await ready(s);
    const operator = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();
    expect(s.stdout).toBe(`AEP Companion listening on ${url}\n${url}/#token=${operator}\n`);
    expect(JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8'))).toEqual({
      url,
      pid: s.child.pid,
    });
    expect((await http(url, { path: '/healthz' })).json).toEqual({ ok: true });

    const ws = await WsClient.hello(url, operator);
    ws.send({ type: 'subscribe', id: 'w' });
    await ws.next((f) => f.type === 'subscribed');
    const sse = await SseClient.open(url, '/stream', { Authorization: `Bearer ${operator}` });
    await sse.until((c) => c.comments().includes('connected'));

    s.child.kill('SIGTERM');
    expect(await ws.next((f) => f.type === 'closing')).toMatchObject({
      type: 'closing',
      delivered: [],
    });
    await sse.untilEnded();
    expect(await s.exited).toBe(0);
    expect(existsSync(join(dataDir, 'daemon.json'))).toBe(false);
  });

  it('exits non-zero with one line when the port is in use', async () => {
    const first = serve(['--port', '0', '--data-dir', join(tempDir(), 'a')]);
    const url = await ready(first);
    const port = new URL(url).port;
    const second = serve(['--port', port, '--data-dir', join(tempDir(), 'b')]);
    expect(await second.exited).not.toBe(0);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toMatch(/port .* in use/);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
  });

  it('refuses a second serve on the same data directory with one line naming the first one’s pid and URL', async () => {
    const dataDir = join(tempDir(), 'data');
    const first = serve(['--port', '0', '--data-dir', dataDir]);
    const url = await ready(first);
    const second = serve(['--port', '0', '--data-dir', dataDir]);
    expect(await second.exited).not.toBe(0);
    expect(second.stderr.trim().split('\n')).toHaveLength(1);
    expect(second.stderr).toContain(`pid ${first.child.pid}`);
    expect(second.stderr).toContain(url);
    // The first one still runs and still owns the record.
    expect(JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8'))).toEqual({ url, pid: first.child.pid });
    expect((await http(url, { path: '/healthz' })).json).toEqual({ ok: true });
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  });

  it('exits non-zero with one line when the data directory cannot be used', async () => {
    const file = join(tempDir(), 'file');
    writeFileSync(file, 'x');
    const s = serve(['--port', '0', '--data-dir', join(file, 'data')]);
    expect(await s.exited).not.toBe(0);
    expect(s.stderr.trim().split('\n')).toHaveLength(1);
    expect(s.stderr).toMatch(/data directory/);
  });

  it('exits non-zero with one line when the database is corrupt', async () => {
    const dataDir = join(tempDir(), 'data');
    mkdirSync(dataDir);
    writeFileSync(join(dataDir, 'companion.db'), 'garbage, not SQLite '.repeat(500));
    const s = serve(['--port', '0', '--data-dir', dataDir]);
    expect(await s.exited).not.toBe(0);
    expect(s.stderr.trim().split('\n')).toHaveLength(1);
    expect(s.stderr).toMatch(/corrupt|not an SQLite/);
  });

  it('refuses bad arguments with usage and exit code 2', async () => {
    const s = serve(['--port', 'eighty']);
    expect(await s.exited).toBe(2);
    expect(s.stderr).toMatch(/--port/);
  });

  it('keeps every event that got a 202 across kill -9 and a restart on the same data directory', async () => {
    const dataDir = join(tempDir(), 'data');
    const s = serve(['--port', '0', '--data-dir', dataDir]);
    const url = await ready(s);
    const hook = readFileSync(join(dataDir, 'hook-token'), 'utf8').trim();
    const acknowledged: string[] = [];
    let stop = false;
    const posters = Array.from({ length: 4 }, async (_, p) => {
      for (let i = 0; !stop; i++) {
        const batch = Array.from({ length: 200 }, (_, j) =>
          makeEvent({ session: `crash-${p}`, seq: i * 200 + j + 1 }),
        );
        try {
          const reply = await postEvents(url, hook, batch);
          if (reply.status === 202) acknowledged.push(...batch.map((e) => e.id));
        } catch {
          return; // the daemon died mid-request: that batch was never acknowledged
        }
      }
    });
    while (acknowledged.length < 3_000) await new Promise((r) => setImmediate(r));
    s.child.kill('SIGKILL');
    stop = true;
    await Promise.all(posters);
    expect(await s.exited).toBe('SIGKILL');

    const again = serve(['--port', '0', '--data-dir', dataDir]);
    const url2 = await ready(again);
    const operator = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();
    const sse = await SseClient.open(url2, '/stream?from=all&live=0', {
      Authorization: `Bearer ${operator}`,
    });
    await sse.untilEnded();
    const stored = new Set(sse.events().map((e) => e.id));
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect(lost).toEqual([]);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });
});
