/** A real daemon with the hooks and agents features, the mock ACP agent as every agent's command, and a WS consumer. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import { createAgentsFeature, type AgentsFeatureOptions } from '../../../main/core/launched/launched-feature';
import type { AgentsHost } from '../../../main/core/launched/agents-host';
import { createHooksFeature } from '../../../main/core/hooks/hooks-feature';
import { ulid } from '../../../main/core/aep/ulid';

export const MOCK_AGENT = fileURLToPath(new URL('../../support/mock-acp-agent.mjs', import.meta.url));

export interface AgentsDaemon {
  readonly daemon: DaemonHandle;
  readonly host: AgentsHost;
  readonly dataDir: string;
  readonly url: string;
  api<T = unknown>(method: string, path: string, body?: unknown): Promise<{ status: number; json: T }>;
  /** Points an agent's command at the mock agent with these arguments. */
  mock(agent: string, ...args: string[]): void;
  close(): Promise<void>;
}

/** The machine as the tests' daemon sees it: this process's PATH and environment unless given. */
export type HostOverride = NonNullable<Parameters<typeof startDaemon>[0]['installerHost']>;

export async function startAgentsDaemon(options: AgentsFeatureOptions = {}, dataDir?: string, installerHost?: HostOverride): Promise<AgentsDaemon> {
  const dir = dataDir ?? join(mkdtempSync(join(tmpdir(), 'aep-agents-')), 'data');
  let host: AgentsHost | undefined;
  const daemon = await startDaemon({
    dataDir: dir,
    port: 0,
    installerHost: installerHost ?? { home: tmpdir(), path: process.env.PATH ?? '', processEnv: process.env, runtime: { path: process.execPath, electron: false } },
    baseFeatures: [
      createHooksFeature({ sweepEveryMs: 0 }),
      createAgentsFeature({ endBoundMs: 1_000, ...options, onReady: (h) => (host = h) }),
    ],
  });
  const api = async <T,>(method: string, path: string, body?: unknown) => {
    const res = await fetch(`${daemon.url}${path}`, {
      method,
      headers: { authorization: `Bearer ${daemon.tokens.operator}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: (await res.json()) as T };
  };
  return {
    daemon,
    host: host as AgentsHost,
    dataDir: dir,
    url: daemon.url,
    api,
    mock: (agent, ...args) => {
      const set = daemon.context.settings.set({ [`agents.${agent}.command`]: [process.execPath, MOCK_AGENT, ...args] } as never);
      if (!set.ok) throw new Error(set.error.message);
    },
    close: () => daemon.close(),
  };
}

export function removeAgentsDir(dataDir: string): void {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
}

type Json = Record<string, unknown>;

/** An operator consumer on /socket: every event kept; commands sent like the console sends them. */
export class Consumer {
  readonly events: Json[] = [];
  readonly frames: Json[] = [];
  private readonly listeners = new Set<() => void>();
  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw) => {
      const m = JSON.parse(String(raw)) as Json;
      if (m.type === 'event' && typeof m.event === 'object') this.events.push(m.event as Json);
      else if (typeof m.aep === 'string') this.events.push(m);
      else this.frames.push(m);
      for (const l of [...this.listeners]) l();
    });
  }

  static async connect(url: string, token: string): Promise<Consumer> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`, { headers: { authorization: `Bearer ${token}` } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    const c = new Consumer(ws);
    ws.send(JSON.stringify({ type: 'hello', versions: ['0.1'], role: 'consumer', identity: { agent: 'agents-test' } }));
    await c.waitFrame((f) => f.type === 'hello', 'hello');
    ws.send(JSON.stringify({ type: 'subscribe', id: 'all', capture: 'redacted' }));
    await c.waitFrame((f) => f.type === 'subscribed', 'subscribed');
    return c;
  }

  /** Sends a command; returns its id. */
  command(type: string, session: string, data: Json, extra: Json = {}, id = ulid()): string {
    this.ws.send(
      JSON.stringify({ aep: '0.1', id, type, time: new Date().toISOString(), source: 'aep://localhost/agent/agents-test', agent: 'operator', session, surface: 'console', ...extra, data }),
    );
    return id;
  }

  roster(): Promise<Json> {
    const id = `roster-${ulid()}`;
    this.ws.send(JSON.stringify({ type: 'roster', id }));
    return this.waitFrame((f) => f.type === 'roster' && f.id === id, 'roster');
  }

  waitEvent(pred: (e: Json) => boolean, what: string, timeoutMs = 20_000): Promise<Json> {
    return this.wait(() => this.events.find(pred), what, timeoutMs);
  }

  waitFrame(pred: (f: Json) => boolean, what: string, timeoutMs = 20_000): Promise<Json> {
    return this.wait(() => this.frames.find(pred), what, timeoutMs);
  }

  ack(commandId: string): Promise<Json> {
    return this.waitEvent((e) => e.cause === commandId && (e.type === 'control.accepted' || e.type === 'control.rejected'), `ack of ${commandId}`);
  }

  of(session: string): Json[] {
    return this.events.filter((e) => e.session === session);
  }

  types(session: string): string[] {
    return this.of(session).map((e) => String(e.type));
  }

  close(): void {
    this.ws.close();
  }

  private wait<T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    const found = find();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(new Error(`timed out waiting for ${what}; events:\n${this.events.map((e) => `${String(e.type)} ${String(e.session)} cause=${String(e.cause)}`).join('\n')}`));
      }, timeoutMs);
      const check = (): void => {
        const v = find();
        if (v === undefined) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve(v);
      };
      this.listeners.add(check);
    });
  }
}
