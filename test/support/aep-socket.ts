/**
 * A small AEP WebSocket consumer for the real-CLI tests (AEP-0003 §3.5/§4/§6.5, AEP-0004): it
 * authenticates with the operator token, exchanges `hello`, subscribes to the live stream, keeps
 * every event and frame it receives, and sends control commands the way the console does.
 */
import { randomBytes } from 'node:crypto';
import WebSocket from 'ws';

/** An AEP event as received (only the members the tests read are typed). */
export interface AepEvent {
  readonly id: string;
  readonly type: string;
  readonly source: string;
  readonly agent: string;
  readonly session?: string;
  readonly cause?: string;
  readonly data?: Record<string, unknown>;
  readonly [key: string]: unknown;
}

/** A non-event frame (hello, subscribed, error…). */
export interface AepFrame {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** How a command settled on the sender's side. */
export type CommandOutcome =
  | { readonly kind: 'accepted'; readonly event: AepEvent }
  | { readonly kind: 'rejected'; readonly event: AepEvent }
  | { readonly kind: 'refused'; readonly frame: AepFrame };

const SENDER = 'aep-vendor-tests';

/** A connected, subscribed consumer. */
export class AepSocket {
  /** Every event received, in order. */
  readonly events: AepEvent[] = [];
  /** Every frame received, in order. */
  readonly frames: AepFrame[] = [];
  private readonly listeners = new Set<() => void>();

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      let message: Record<string, unknown>;
      try {
        message = JSON.parse(String(data)) as Record<string, unknown>;
      } catch {
        return;
      }
      // Events carry the envelope version; frames do not.
      if (typeof message.aep === 'string') this.events.push(message as unknown as AepEvent);
      else this.frames.push(message as AepFrame);
      for (const listener of [...this.listeners]) listener();
    });
  }

  /** Connects to `<baseUrl>/socket`, says hello as a consumer, subscribes to everything live. */
  static async connect(baseUrl: string, operatorToken: string): Promise<AepSocket> {
    const url = `${baseUrl.replace(/^http/, 'ws')}/socket`;
    const ws = new WebSocket(url, { headers: { authorization: `Bearer ${operatorToken}` } });
    const socket = new AepSocket(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) =>
        reject(new Error(`WS upgrade refused: HTTP ${res.statusCode}`)),
      );
    });
    socket.send({
      type: 'hello',
      versions: ['0.1'],
      role: 'consumer',
      identity: { agent: SENDER, instance: `vendor-tests/${process.pid}` },
      capabilities: { capture: ['none', 'metadata', 'redacted'] },
    });
    await socket.waitForFrame((f) => f.type === 'hello' || f.type === 'error', 'hello reply');
    const refused = socket.frames.find((f) => f.type === 'error');
    if (refused) throw new Error(`hello refused: ${JSON.stringify(refused)}`);
    socket.send({ type: 'subscribe', id: 'all' });
    const reply = await socket.waitForFrame(
      (f) => f.id === 'all' && (f.type === 'subscribed' || f.type === 'error'),
      'subscribe reply',
    );
    if (reply.type !== 'subscribed') throw new Error(`subscribe refused: ${JSON.stringify(reply)}`);
    return socket;
  }

  /** Resolves with the first event (seen or future, from index `fromIndex` on) matching; bounded. */
  waitForEvent(
    predicate: (e: AepEvent) => boolean,
    what: string,
    options: { timeoutMs?: number; fromIndex?: number } = {},
  ): Promise<AepEvent> {
    const from = options.fromIndex ?? 0;
    return this.waitFor(
      () => this.events.find((e, i) => i >= from && predicate(e)),
      what,
      options.timeoutMs ?? 120_000,
    );
  }

  /** Resolves with the first frame (seen or future) matching; bounded. */
  waitForFrame(
    predicate: (f: AepFrame) => boolean,
    what: string,
    timeoutMs = 30_000,
  ): Promise<AepFrame> {
    return this.waitFor(() => this.frames.find(predicate), what, timeoutMs);
  }

  /** Sends `x.{vendor}.control.instruct { text }` to `session`; resolves with its ack or refusal. */
  async instruct(
    vendor: string,
    session: string,
    text: string,
  ): Promise<{ id: string; outcome: CommandOutcome }> {
    const id = newUlid();
    this.send({
      aep: '0.1',
      id,
      type: `x.${vendor}.control.instruct`,
      time: new Date().toISOString(),
      source: `aep://localhost/agent/${SENDER}`,
      agent: SENDER,
      session,
      capture: 'redacted',
      data: { text },
    });
    const outcome = await this.waitFor<CommandOutcome>(
      () => {
        const ack = this.events.find(
          (e) => e.cause === id && (e.type === 'control.accepted' || e.type === 'control.rejected'),
        );
        if (ack)
          return { kind: ack.type === 'control.accepted' ? 'accepted' : 'rejected', event: ack };
        const frame = this.frames.find(
          (f) => f.type === 'error' && (f.cause === id || f.id === id),
        );
        return frame ? { kind: 'refused', frame } : undefined;
      },
      `ack of command ${id}`,
      30_000,
    );
    return { id, outcome };
  }

  /** One line per event received, for assertion messages. */
  describe(): string {
    return (
      this.events
        .map(
          (e) =>
            `${e.type} session=${e.session ?? '-'} cause=${e.cause ?? '-'} ${JSON.stringify(e.data ?? {}).slice(0, 160)}`,
        )
        .join('\n') || '(none)'
    );
  }

  /** Closes the connection. */
  close(): void {
    this.ws.close();
  }

  private send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  private waitFor<T>(find: () => T | undefined, what: string, timeoutMs: number): Promise<T> {
    const found = find();
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const check = () => {
        const hit = find();
        if (hit === undefined) return;
        clearTimeout(timer);
        this.listeners.delete(check);
        resolve(hit);
      };
      const timer = setTimeout(() => {
        this.listeners.delete(check);
        reject(
          new Error(
            `no ${what} within ${timeoutMs} ms; events:\n${this.describe()}\nframes:\n${this.frames.map((f) => JSON.stringify(f)).join('\n')}`,
          ),
        );
      }, timeoutMs);
      this.listeners.add(check);
    });
  }
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A ULID (48-bit time, 80 random bits, Crockford base32) for command ids. */
export function newUlid(now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = CROCKFORD[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = randomBytes(16);
  let rand = '';
  for (let i = 0; i < 16; i++) rand += CROCKFORD[bytes[i] % 32];
  return time + rand;
}
