/**
 * The port precedence of `serve`: `--port` > the stored `server.port` setting > 8787. A port saved
 * in Settings (the "restart needed" one) is the port the next `serve` on that data directory binds.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { http } from '../relay/harness';
import { ready, spawnServe, type ServeChild } from './serve-process';

const children: ServeChild[] = [];
const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const c of children.splice(0))
    if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});
const serve = (args: string[]): ServeChild => {
  const s = spawnServe(args);
  children.push(s);
  return s;
};

/** Listens on a free loopback port; the caller closes it (or keeps it to hold the port). */
const holdPort = async (): Promise<{ server: Server; port: number }> => {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  return { server, port: (server.address() as { port: number }).port };
};
const freePort = async (): Promise<number> => {
  const { server, port } = await holdPort();
  await new Promise((r) => server.close(r));
  return port;
};

/** Stores `server.port` through the running daemon's own API, the way the Settings view does. */
const storePort = async (dataDir: string, port: number): Promise<void> => {
  const s = serve(['--port', '0', '--data-dir', dataDir]);
  const url = await ready(s);
  const operator = readFileSync(join(dataDir, 'operator-token'), 'utf8').trim();
  const res = await http(url, {
    method: 'PATCH',
    path: '/api/settings',
    headers: { Authorization: `Bearer ${operator}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ 'server.port': port }),
  });
  expect(res.status).toBe(200);
  s.child.kill('SIGTERM');
  expect(await s.exited).toBe(0);
};

describe('serve port precedence', () => {
  it('binds the stored server.port setting when no --port is given', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'aep-serve-port-')), 'data');
    dirs.push(join(dataDir, '..'));
    const port = await freePort();
    await storePort(dataDir, port);

    const s = serve(['--data-dir', dataDir]);
    const url = await ready(s);
    expect(url).toBe(`http://127.0.0.1:${port}`);
    expect(JSON.parse(readFileSync(join(dataDir, 'daemon.json'), 'utf8'))).toMatchObject({ url });
    expect((await http(url, { path: '/healthz' })).json).toEqual({ ok: true });
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);
  });

  it('lets --port win over the stored setting, even when the stored port is taken', async () => {
    const dataDir = join(mkdtempSync(join(tmpdir(), 'aep-serve-port-')), 'data');
    dirs.push(join(dataDir, '..'));
    const port = await freePort();
    await storePort(dataDir, port);
    // Something else now holds the stored port: a serve that read the setting would fail to bind.
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(port, '127.0.0.1', resolve));
    servers.push(blocker);

    const s = serve(['--port', '0', '--data-dir', dataDir]);
    const url = await ready(s);
    expect(new URL(url).port).not.toBe(String(port));
    s.child.kill('SIGTERM');
    expect(await s.exited).toBe(0);

    // Without the flag the stored port is what it tries, and it says so in one line.
    const without = serve(['--data-dir', dataDir]);
    expect(await without.exited).not.toBe(0);
    expect(without.stderr.trim().split('\n')).toHaveLength(1);
    expect(without.stderr).toContain(String(port));
  });
});
