// A daemon with the hooks and OpenHands features against the stand-in agent server (stub-server.ts).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AepEvent } from '../../../../common/aep/envelope';
import type { OpenHandsState } from '../../../../common/openhands';
import { createHooksFeature } from '../../../../main/core/hooks/hooks-feature';
import { startDaemon, type DaemonHandle } from '../../../../main/core/daemon';
import type { OpenHandsBridge } from '../../../../main/core/vendors/openhands/bridge';
import { createOpenHandsFeature } from '../../../../main/core/vendors/openhands/feature';
import { Consumer } from '../../hooks/hooks-harness';
import { StubAgentServer, type StubOptions } from './stub-server';

export interface Rig {
  readonly root: string;
  readonly dataDir: string;
  readonly stub: StubAgentServer;
  daemon: DaemonHandle;
  bridge: OpenHandsBridge;
  c: Consumer;
  api<T = OpenHandsState>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }>;
  /** Restarts the daemon on the same data directory. */
  restart(): Promise<void>;
  close(): Promise<void>;
}

export async function startRig(opts: { stub?: StubOptions; instruct?: boolean; steering?: boolean; connect?: boolean; key?: string } = {}): Promise<Rig> {
  const root = await mkdtemp(join(tmpdir(), 'aep-openhands-'));
  const dataDir = join(root, 'data');
  const stub = new StubAgentServer(opts.stub);
  await stub.start();
  let bridge!: OpenHandsBridge;
  const boot = async (): Promise<DaemonHandle> =>
    startDaemon({
      dataDir,
      port: 0,
      baseFeatures: [
        createHooksFeature({ sweepEveryMs: 0 }),
        createOpenHandsFeature({ pollMs: 3_600_000, backoffMs: { initial: 20, max: 200 }, onReady: (p) => (bridge = p.bridge) }),
      ],
    });
  const daemon = await boot();
  const rig: Rig = {
    root,
    dataDir,
    stub,
    daemon,
    bridge,
    c: await Consumer.open(daemon.url, daemon.tokens.operator),
    async api<T>(method: string, path: string, body?: unknown) {
      const res = await fetch(`${rig.daemon.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${rig.daemon.tokens.operator}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as T };
    },
    async restart() {
      rig.c.close();
      await rig.daemon.close();
      rig.daemon = await boot();
      rig.bridge = bridge;
      rig.c = await Consumer.open(rig.daemon.url, rig.daemon.tokens.operator);
    },
    async close() {
      rig.c.close();
      await rig.daemon.close();
      await stub.stop();
      await rm(root, { recursive: true, force: true });
    },
  };
  if (opts.steering !== false) await rig.api('PUT', '/api/steering', { enabled: true, surface: 'console' });
  if (opts.connect !== false) {
    const r = await rig.api('POST', '/api/openhands/connect', { url: stub.url, key: opts.key ?? stub.key, instruct: opts.instruct ?? true });
    if (r.status !== 200) throw new Error(`connect answered ${r.status}: ${JSON.stringify(r.body)}`);
  }
  return rig;
}

/** Waits until `check` holds (polls the condition; no time is asserted). */
export async function until<T>(check: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, tries = 500): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await check();
    if (v) return v;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** The session's events the consumer received so far. */
export const sessionEvents = (c: Consumer, session: string): AepEvent[] => c.events().filter((e) => e.session === session);

/** Writes a key file with the given mode. */
export async function keyFile(dir: string, key: string, mode = 0o600): Promise<string> {
  const path = join(dir, `key-${mode.toString(8)}`);
  await writeFile(path, `${key}\n`, { mode });
  return path;
}
