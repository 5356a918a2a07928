import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DaemonStartError, startDaemon } from '../../../main/core/daemon';
import type { DaemonContext } from '../../../main/core/daemon-context';
import { sendJson } from '../../../main/core/server/http-util';
import { http, makeEvent, startTestDaemon, WsClient, type TestDaemon } from '../relay/harness';

let d: TestDaemon | undefined;
const dirs: string[] = [];
afterEach(async () => {
  await d?.stop();
  d = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});
const tempDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'aep-daemon-'));
  dirs.push(dir);
  return dir;
};

describe('startDaemon', () => {
  it('starts features with the context, serves the routes they register and disposes them in reverse order on close', async () => {
    const order: string[] = [];
    let seen: DaemonContext | undefined;
    const feature = (name: string) => (ctx: DaemonContext) => {
      seen = ctx;
      order.push(`start ${name}`);
      const off = ctx.routes.register({
        method: 'GET',
        path: `/hooks/${name}`,
        auth: 'hook',
        handler: (_req, res) => sendJson(res, 200, { feature: name }),
      });
      return () => {
        order.push(`stop ${name}`);
        return off();
      };
    };
    d = await startTestDaemon({ features: [feature('a'), async (ctx) => feature('b')(ctx)] });
    expect(seen?.url).toBe(d.url);
    expect(seen?.tokens.hook).toBe(d.tokens.hook);
    expect(
      (
        await http(d.url, {
          path: '/hooks/b',
          headers: { Authorization: `Bearer ${d.tokens.hook}` },
        })
      ).json,
    ).toEqual({ feature: 'b' });
    expect((await http(d.url, { path: '/hooks/b' })).status).toBe(401);
    await d.close();
    expect(order).toEqual(['start a', 'start b', 'stop b', 'stop a']);
  });

  it('lets features emit on the way out: their last events reach consumers before the closing frame', async () => {
    const farewell = makeEvent({ session: 'bye', type: 'session.ended' });
    d = await startTestDaemon({
      features: [
        (ctx) => {
          const link = ctx.relay.attachEmitter({ agent: 'tester', instance: 'f' });
          return () => link.emit(farewell);
        },
      ],
    });
    const c = await WsClient.hello(d.url, d.tokens.operator);
    c.send({ type: 'subscribe', id: 's' });
    await c.next((f) => f.type === 'subscribed');
    await d.close();
    await c.untilClosed();
    const types = c.frames.map((f) => f.type);
    expect(types.indexOf('session.ended')).toBeGreaterThan(-1);
    expect(types.indexOf('session.ended')).toBeLessThan(types.indexOf('closing'));
  });

  it('stores --max-events-per-session as the retention setting and advertises it', async () => {
    d = await startTestDaemon({ maxEventsPerSession: 123 });
    expect(d.context.settings.get('retention.maxEventsPerSession')).toBe(123);
    expect(d.context.relay.discovery().capabilities.replay).toEqual({ buffer: 123, all: true });
  });

  it('fails with port-in-use when the port is taken', async () => {
    d = await startTestDaemon();
    const error = await startDaemon({
      dataDir: join(tempDir(), 'd'),
      port: d.port,
      baseFeatures: [],
    }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DaemonStartError);
    expect((error as DaemonStartError).code).toBe('port-in-use');
    expect((error as Error).message).not.toContain('\n');
  });

  it('fails with a database error on a corrupt database file', async () => {
    const dataDir = join(tempDir(), 'd');
    mkdirSync(dataDir);
    writeFileSync(
      join(dataDir, 'companion.db'),
      'this is not a database, just some text that is long enough '.repeat(200),
    );
    const error = await startDaemon({ dataDir, port: 0, baseFeatures: [] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DaemonStartError);
    expect((error as DaemonStartError).code).toBe('database');
    expect((error as Error).message).toMatch(/corrupt|not an SQLite/);
  });

  it.skipIf(process.getuid?.() === 0)(
    'fails with a data-dir error when the data directory is not writable',
    async () => {
      const parent = tempDir();
      chmodSync(parent, 0o500);
      const error = await startDaemon({
        dataDir: join(parent, 'd'),
        port: 0,
        baseFeatures: [],
      }).catch((e: unknown) => e);
      chmodSync(parent, 0o700);
      expect((error as DaemonStartError).code).toBe('data-dir');
    },
  );

  it('fails with a data-dir error when the data directory path is a file', async () => {
    const file = join(tempDir(), 'plain-file');
    writeFileSync(file, 'x');
    const error = await startDaemon({ dataDir: file, port: 0, baseFeatures: [] }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DaemonStartError);
    expect((error as DaemonStartError).code).toBe('data-dir');
  });
});
