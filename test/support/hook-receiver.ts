/**
 * A plain hook receiver for the harness tests: a node HTTP server on 127.0.0.1 that records every
 * hook call (`POST /hook/<vendor>`, the vendor's payload as body) and answers with what the test's
 * `reply` function returns. It lets the harness prove, per vendor version, which moments fire, what
 * their payloads carry, and which moments' `additionalContext` the CLI really reads.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

/** One hook call as received. */
export interface HookCall {
  readonly index: number;
  /** The vendor segment of the path (`/hook/<vendor>`). */
  readonly vendor: string;
  /** `hook_event_name` from the payload (every vendor here sends it). */
  readonly moment: string;
  readonly payload: Record<string, unknown>;
  /** What was answered (empty object when nothing). */
  readonly reply: unknown;
  /** performance.now() when the reply was sent (same clock as the stubs' `at`). */
  readonly repliedAt: number;
}

/** Decides the reply to one hook call; `undefined` answers `{}`. */
export type HookReplier = (call: {
  moment: string;
  payload: Record<string, unknown>;
  vendor: string;
  nth: number;
}) => unknown;

/** Absolute path of the command-hook script that forwards stdin to a receiver URL. */
export const HOOK_POST_SCRIPT = fileURLToPath(new URL('./hook-post.mjs', import.meta.url));

/** The reply shape Claude Code, Codex and Qwen Code read context from. */
export function contextReply(moment: string, text: string): unknown {
  return { hookSpecificOutput: { hookEventName: moment, additionalContext: text } };
}

/** A recording hook receiver. */
export class HookReceiver {
  /** Every hook call, in arrival order. */
  readonly calls: HookCall[] = [];
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly counts = new Map<string, number>();
  private base = '';

  constructor(private readonly replier: HookReplier = () => undefined) {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let payload: Record<string, unknown> = {};
        try {
          payload = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
        } catch {
          payload = { unparsed: Buffer.concat(chunks).toString('utf8') };
        }
        const vendor = (req.url ?? '').split('?')[0].split('/').filter(Boolean)[1] ?? 'unknown';
        const moment =
          typeof payload.hook_event_name === 'string' ? payload.hook_event_name : 'unknown';
        const nth = (this.counts.get(moment) ?? 0) + 1;
        this.counts.set(moment, nth);
        const reply = this.replier({ moment, payload, vendor, nth }) ?? {};
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(reply));
        this.calls.push({
          index: this.calls.length,
          vendor,
          moment,
          payload,
          reply,
          repliedAt: performance.now(),
        });
      });
    });
    this.server.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
  }

  /** Binds to 127.0.0.1 on a free port. */
  async start(): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, '127.0.0.1', () => resolve());
    });
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** The URL hooks of `vendor` should POST to. */
  urlFor(vendor: string): string {
    return `${this.base}/hook/${vendor}`;
  }

  /** The distinct moments seen, in first-seen order. */
  moments(): string[] {
    return [...new Set(this.calls.map((c) => c.moment))];
  }

  /** Payload field names seen per moment (union over calls), for the hooks mapping table. */
  fieldsByMoment(): Record<string, string[]> {
    const out: Record<string, Set<string>> = {};
    for (const call of this.calls) {
      const set = (out[call.moment] ??= new Set());
      for (const key of Object.keys(call.payload)) set.add(key);
    }
    return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, [...v].sort()]));
  }

  /** Stops listening. */
  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
