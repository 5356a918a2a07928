// The Cline hub client against a stub hub replaying the frames recorded from the real 3.0.65 hub:
// connect (register, subscribe), bad token, replay after a reconnect, backoff, and the refusals
// that degrade the tap to hooks only (absent, unsafe or malformed discovery, protocol mismatch).
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDiscovery, readDiscovery } from '../../../../main/core/vendors/cline/hub/discovery';
import {
  HubClient,
  type HubEvent,
  type HubStatus,
} from '../../../../main/core/vendors/cline/hub/hub-client';
import { createLogger } from '../../../../main/core/logger';
import { recordedEvents, startStubHub, type StubHub } from './stub-hub';

let dir: string;
let hub: StubHub;
let client: HubClient | null;
let events: HubEvent[];
let statuses: HubStatus[];

const until = async (what: string, check: () => boolean): Promise<void> => {
  for (let i = 0; i < 400; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
};

const start = (discoveryPath: string, token = hub.token): HubClient => {
  void token;
  client = new HubClient({
    discoveryPath,
    clientId: 'aep-test',
    logger: createLogger('cline-hub-test'),
    onEvent: (e) => events.push(e),
    onStatus: (s) => statuses.push(s),
    backoffMs: { initial: 20, max: 80 },
    replyTimeoutMs: 2000,
  });
  client.start();
  return client;
};

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'aep-cline-hub-'));
  hub = await startStubHub();
  events = [];
  statuses = [];
  client = null;
});
afterEach(async () => {
  client?.stop();
  await hub.close();
  await rm(dir, { recursive: true, force: true });
});

describe('Cline hub client', () => {
  it('connects with the auth subprotocol, registers, subscribes and receives the recorded run', async () => {
    const path = join(dir, 'production.json');
    await hub.writeDiscovery(path);
    start(path);
    await until('connected', () => client?.status.state === 'connected');
    // `connected` follows sending the subscribe; the hub holds it live once it has read it.
    await until('subscribed', () => hub.subscriptions.length === 1);
    expect(hub.commands[0]).toMatchObject({
      command: 'client.register',
      payload: { clientId: 'aep-test', capabilities: [{ name: 'approval.respond' }] },
    });
    expect(hub.subscriptions).toEqual([undefined]);
    const recorded = recordedEvents('frames-s1.jsonl');
    hub.publish(recorded);
    await until('all events', () => events.length === recorded.length);
    expect(events.map((e) => e.sequence)).toEqual(recorded.map((e) => e.sequence));
    expect(events.find((e) => e.event === 'session.pending_prompt_submitted')?.sessionId).toBe(
      '1796114557302_k1lk8',
    );
    const reply = await (client as HubClient).request('run.abort', { sessionId: 's' }, 's');
    expect(reply).toEqual({ ok: true, payload: { applied: true } });
    expect(hub.commands.at(-1)).toEqual({
      command: 'run.abort',
      payload: { sessionId: 's' },
      sessionId: 's',
    });
  });

  it('a bad token is hung up on: unavailable with the reason, retried with backoff, never connected', async () => {
    const path = join(dir, 'production.json');
    await hub.writeDiscovery(path, { authToken: 'b'.repeat(64) });
    start(path);
    // Between attempts the client is `unavailable`; it flips to `connecting` for each retry.
    await until('two refusals', () => hub.refused >= 2 && client?.status.state === 'unavailable');
    expect(client?.status.reason).toContain('refused the connection');
    expect(statuses.some((s) => s.state === 'connected')).toBe(false);
    const reply = await (client as HubClient).request('session.send_input', {});
    expect(reply).toMatchObject({ ok: false, code: 'hub_unavailable' });
    // The token rotates (the hub restarted): the next attempt reads the file again and gets in.
    await hub.writeDiscovery(path);
    await until('connected', () => client?.status.state === 'connected');
  });

  it('after a drop it reconnects and resumes with sinceSequence: what it missed is replayed, nothing twice', async () => {
    const path = join(dir, 'production.json');
    await hub.writeDiscovery(path);
    start(path);
    await until('connected', () => client?.status.state === 'connected');
    await until('subscribed', () => hub.subscriptions.length === 1);
    const recorded = recordedEvents('frames-ab2.jsonl');
    const half = Math.floor(recorded.length / 2);
    hub.publish(recorded.slice(0, half));
    await until('first half', () => events.length === half);
    hub.dropConnections();
    await until('disconnected', () => client?.status.state !== 'connected');
    hub.publish(recorded.slice(half));
    await until('reconnected', () => client?.status.state === 'connected');
    await until('all', () => events.length === recorded.length);
    expect(hub.subscriptions).toEqual([undefined, recorded[half - 1].sequence]);
    expect(new Set(events.map((e) => e.sequence)).size).toBe(recorded.length);
    expect(events.some((e) => e.event === 'run.aborted')).toBe(true);
  });

  it('pending commands fail with a clear reply when the hub goes away', async () => {
    const path = join(dir, 'production.json');
    await hub.writeDiscovery(path);
    start(path);
    await until('connected', () => client?.status.state === 'connected');
    hub.answer = () => {
      hub.dropConnections();
      return { ok: true, payload: {} };
    };
    const reply = await (client as HubClient).request('session.send_input', {
      sessionId: 's',
      prompt: 'x',
    });
    expect(reply.ok).toBe(false);
  });
});

describe('Cline hub discovery', () => {
  it('absent, readable by others, malformed, non-loopback and another protocol are refused with the reason', async () => {
    const path = join(dir, 'production.json');
    expect(await readDiscovery(path)).toMatchObject({ ok: false, error: { code: 'absent' } });
    await writeFile(path, JSON.stringify({ url: hub.url, authToken: 't' }));
    await chmod(path, 0o644);
    expect(await readDiscovery(path)).toMatchObject({ ok: false, error: { code: 'unsafe' } });
    await chmod(path, 0o600);
    expect(await readDiscovery(path)).toMatchObject({
      ok: true,
      value: { url: hub.url, authToken: 't' },
    });
    expect(parseDiscovery('{', path)).toMatchObject({ ok: false, error: { code: 'invalid' } });
    expect(
      parseDiscovery(JSON.stringify({ url: 'ws://10.0.0.1:1/hub', authToken: 't' }), path),
    ).toMatchObject({ ok: false, error: { code: 'invalid' } });
    expect(
      parseDiscovery(
        JSON.stringify({
          url: hub.url,
          authToken: 't',
          minClientProtocolVersion: 'v2',
          maxClientProtocolVersion: 'v3',
        }),
        path,
      ),
    ).toMatchObject({
      ok: false,
      error: { code: 'version-mismatch' },
    });
  });

  it('the recorded discovery file parses', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(
      new URL(
        '../../../fixtures/cline/evidence/hub-discovery-production.json.redacted',
        import.meta.url,
      ),
      'utf8',
    );
    expect(parseDiscovery(text, 'production.json')).toMatchObject({
      ok: true,
      value: {
        url: 'ws://127.0.0.1:25999/hub',
        hubId: 'hub_1796114422741_ht3do',
        coreVersion: '0.0.86',
      },
    });
  });

  it('a version mismatch keeps the client unavailable, visibly', async () => {
    const path = join(dir, 'production.json');
    await hub.writeDiscovery(path, {
      minClientProtocolVersion: 'v2',
      maxClientProtocolVersion: 'v2',
      protocolVersion: 'v2',
    });
    start(path);
    await until('unavailable', () => client?.status.state === 'unavailable');
    expect(client?.status.reason).toContain('protocol');
    expect(hub.commands).toEqual([]);
  });
});
