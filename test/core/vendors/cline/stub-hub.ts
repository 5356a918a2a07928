/**
 * A stand-in Cline hub on a real WebSocket server (port 0), speaking the recorded protocol v1:
 * auth by the `cline-hub-auth.<token>` subprotocol (a bad token is hung up on, as the real hub
 * does), `client.register` → reply, `stream.subscribe {sinceSequence?}` → replay of the events it
 * holds after that sequence (none without it), then live events. Commands are recorded and answered by `answer`
 * (default: the recorded reply shapes). Writes the discovery file the client reads (mode 0600).
 */
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';

/** One recorded hub event envelope. */
export type Envelope = Record<string, unknown> & {
  event: string;
  sequence: number;
  sessionId?: string;
};

/** The `in` event envelopes of a recorded frames file, in order. */
export function recordedEvents(file: string): Envelope[] {
  const path = fileURLToPath(new URL(`../../../fixtures/cline/${file}`, import.meta.url));
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { dir: string; frame: { kind?: string; envelope?: Envelope } })
    .filter((l) => l.dir === 'in' && l.frame.kind === 'event' && l.frame.envelope)
    .map((l) => l.frame.envelope as Envelope);
}

export interface ReceivedCommand {
  readonly command: string;
  readonly payload: Record<string, unknown>;
  readonly sessionId?: string;
}

export type Answer =
  | { ok: true; payload: Record<string, unknown> }
  | { ok: false; error: { code: string; message: string } };

export interface StubHub {
  readonly url: string;
  readonly token: string;
  readonly commands: ReceivedCommand[];
  /** Subscriptions seen, with their sinceSequence. */
  readonly subscriptions: (number | undefined)[];
  /** Connection attempts refused for a bad token. */
  refused: number;
  answer: (c: ReceivedCommand) => Answer;
  /** Holds events (replayed to later subscribers) and sends them to the current ones. */
  publish(events: readonly Envelope[]): void;
  /** Drops every connection (the hub went away or restarted its socket). */
  dropConnections(): void;
  writeDiscovery(path: string, extra?: Record<string, unknown>): Promise<void>;
  close(): Promise<void>;
}

const defaultAnswer = (c: ReceivedCommand): Answer => {
  if (c.command === 'run.abort') return { ok: true, payload: { applied: true } };
  if (c.command === 'session.get')
    return { ok: false, error: { code: 'session_not_found', message: 'Unknown session' } };
  return { ok: true, payload: {} };
};

export async function startStubHub(token = 'a'.repeat(64)): Promise<StubHub> {
  const held: Envelope[] = [];
  const live = new Set<WebSocket>();
  const wss = new WebSocketServer({
    port: 0,
    host: '127.0.0.1',
    path: '/hub',
    handleProtocols: (protocols) =>
      protocols.has(`cline-hub-auth.${token}`) ? `cline-hub-auth.${token}` : false,
  });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const port = (wss.address() as { port: number }).port;
  const hub: StubHub = {
    url: `ws://127.0.0.1:${port}/hub`,
    token,
    commands: [],
    subscriptions: [],
    refused: 0,
    answer: defaultAnswer,
    publish(events) {
      held.push(...events);
      for (const socket of live)
        for (const e of events) socket.send(JSON.stringify({ kind: 'event', envelope: e }));
    },
    dropConnections() {
      for (const socket of live) socket.terminate();
      live.clear();
    },
    async writeDiscovery(path, extra = {}) {
      await mkdir(dirname(path), { recursive: true });
      const doc = {
        hubId: 'hub_stub',
        protocolVersion: 'v1',
        minClientProtocolVersion: 'v1',
        maxClientProtocolVersion: 'v1',
        authToken: token,
        host: '127.0.0.1',
        port,
        url: this.url,
        pid: process.pid,
        ...extra,
      };
      await writeFile(path, JSON.stringify(doc), { mode: 0o600 });
      await chmod(path, 0o600);
    },
    close: () =>
      new Promise((resolve) => {
        for (const socket of wss.clients) socket.terminate();
        wss.close(() => resolve());
      }),
  };
  wss.on('connection', (socket, req) => {
    // The real hub hangs up on a bad token; `ws` answers the upgrade without a protocol, so hang up here.
    if (socket.protocol !== `cline-hub-auth.${token}`) {
      hub.refused += 1;
      socket.terminate();
      return;
    }
    void req;
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as {
        kind: string;
        sinceSequence?: number;
        envelope?: Record<string, unknown>;
      };
      if (frame.kind === 'stream.subscribe') {
        hub.subscriptions.push(frame.sinceSequence);
        live.add(socket);
        // Without sinceSequence only live events follow (as recorded); with it, the held ones after it first.
        const since = frame.sinceSequence;
        for (const e of since === undefined ? [] : held.filter((x) => x.sequence > since))
          socket.send(JSON.stringify({ kind: 'event', envelope: e }));
        return;
      }
      if (frame.kind !== 'command' || !frame.envelope) return;
      const env = frame.envelope;
      const received: ReceivedCommand = {
        command: String(env.command),
        payload: (env.payload ?? {}) as Record<string, unknown>,
        ...(typeof env.sessionId === 'string' ? { sessionId: env.sessionId } : {}),
      };
      hub.commands.push(received);
      const reply =
        env.command === 'client.register'
          ? {
              ok: true as const,
              payload: { clientId: (env.payload as { clientId?: string }).clientId },
            }
          : hub.answer(received);
      socket.send(
        JSON.stringify({
          kind: 'reply',
          envelope: { version: 'v1', requestId: env.requestId, ...reply },
        }),
      );
    });
    socket.on('close', () => live.delete(socket));
  });
  return hub;
}
