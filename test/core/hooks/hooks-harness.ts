/**
 * Harness for the hooks and steering integration tests: a real daemon on 127.0.0.1:0 in a temp
 * directory with the hooks feature (injected clock and scheduler), a hook poster that speaks like
 * the vendors, and a queued `ws` client. Waits are for conditions, never for durations.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import WebSocket from 'ws';
import type { AepEvent } from '../../../common/aep/envelope';
import { startDaemon, type DaemonHandle } from '../../../main/core/daemon';
import { createHooksFeature, type HooksParts } from '../../../main/core/hooks/hooks-feature';
import type { Scheduler } from '../../../main/core/steering/permission-loop';

/** A settable clock. */
export class TestClock {
  constructor(public now = Date.parse('2026-11-29T10:00:00.000Z')) {}
  readonly read = (): number => this.now;
  advance(ms: number): void {
    this.now += ms;
  }
}

/** A scheduler whose timers fire only when the test says so. */
export class ManualScheduler {
  readonly timers: { ms: number; fire: () => void; cancelled: boolean }[] = [];
  readonly schedule: Scheduler = (ms, fire) => {
    const timer = { ms, fire, cancelled: false };
    this.timers.push(timer);
    return () => {
      timer.cancelled = true;
    };
  };
  /** Fires every pending timer. */
  fireAll(): number {
    const due = this.timers.filter((t) => !t.cancelled);
    for (const t of due) {
      t.cancelled = true;
      t.fire();
    }
    return due.length;
  }
  /** Timers still armed. */
  get armed(): number {
    return this.timers.filter((t) => !t.cancelled).length;
  }
}

/** A daemon with the hooks feature. */
export interface HooksDaemon {
  readonly daemon: DaemonHandle;
  readonly parts: HooksParts;
  readonly dataDir: string;
  readonly url: string;
  close(): Promise<void>;
}

/** Starts a daemon with only the hooks feature, in `dataDir` (a fresh temp dir when absent). */
export async function startHooksDaemon(
  options: { dataDir?: string; clock?: TestClock; scheduler?: ManualScheduler } = {},
): Promise<HooksDaemon> {
  const dataDir = options.dataDir ?? join(mkdtempSync(join(tmpdir(), 'aep-hooks-')), 'data');
  let parts: HooksParts | undefined;
  const daemon = await startDaemon({
    dataDir,
    port: 0,
    baseFeatures: [
      createHooksFeature({
        clock: options.clock?.read,
        schedule: options.scheduler?.schedule,
        sweepEveryMs: 0,
        onReady: (p) => {
          parts = p;
        },
      }),
    ],
  });
  return { daemon, parts: parts as HooksParts, dataDir, url: daemon.url, close: () => daemon.close() };
}

/** Removes a temp data directory (and its parent made by startHooksDaemon). */
export function removeDataDir(dataDir: string): void {
  rmSync(join(dataDir, '..'), { recursive: true, force: true });
}

/** An HTTP answer. */
export interface HookAnswer {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
  readonly json: unknown;
}

/** POSTs a hook payload as a vendor's HTTP hook (or the shim) does. */
export async function postHook(
  url: string,
  token: string,
  vendor: string,
  payload: unknown,
  query: { instruct?: boolean; permissions?: boolean; chunked?: boolean } = {},
): Promise<HookAnswer> {
  const target = new URL(`/hooks/${vendor}`, url);
  if (query.instruct) target.searchParams.set('instruct', '1');
  if (query.permissions) target.searchParams.set('permissions', '1');
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  // A string body carries a Content-Length; a stream is sent chunked.
  const body = query.chunked
    ? new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text));
          controller.close();
        },
      })
    : text;
  const res = await fetch(target, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body,
    ...(query.chunked ? { duplex: 'half' } : {}),
  } as RequestInit);
  const answer = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(answer);
  } catch {
    json = null;
  }
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: answer, json };
}

type Frame = Record<string, unknown>;

/** A WebSocket consumer that queues frames and waits for them by predicate. */
export class Consumer {
  readonly frames: Frame[] = [];
  readonly texts: string[] = [];
  private waiters: (() => void)[] = [];
  private closed = false;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data) => {
      const text = data.toString();
      this.texts.push(text);
      try {
        this.frames.push(JSON.parse(text) as Frame);
      } catch {
        // Not JSON: kept in texts only.
      }
      this.wake();
    });
    ws.on('close', () => {
      this.closed = true;
      this.wake();
    });
  }

  /** Connects with the operator token, says hello as a consumer and subscribes (default: everything, redacted ceiling). */
  static async open(url: string, token: string, filter: Frame = {}, capture = 'redacted'): Promise<Consumer> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket`, { headers: { authorization: `Bearer ${token}` } });
    const c = new Consumer(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    c.send({ type: 'hello', versions: ['0.1'], role: 'consumer', identity: { agent: 'test-console' } });
    await c.next((f) => f.type === 'hello');
    c.send({ type: 'subscribe', id: 'all', filter, capture });
    await c.next((f) => f.type === 'subscribed');
    return c;
  }

  /** Sends a frame or event. */
  send(frame: unknown): void {
    this.ws.send(JSON.stringify(frame));
  }

  /** Resolves with the first queued frame matching `predicate` (from the start of the queue). */
  async next(predicate: (f: Frame) => boolean): Promise<Frame> {
    for (;;) {
      const found = this.frames.find(predicate);
      if (found) return found;
      if (this.closed) throw new Error('socket closed before the expected frame arrived');
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Events (frames with a dotted type) received so far. */
  events(): AepEvent[] {
    return this.frames.filter((f) => typeof f.type === 'string' && (f.type as string).includes('.')) as unknown as AepEvent[];
  }

  /** Waits for an event matching `predicate`. */
  async event(predicate: (e: AepEvent) => boolean): Promise<AepEvent> {
    return (await this.next((f) => typeof f.type === 'string' && (f.type as string).includes('.') && predicate(f as unknown as AepEvent))) as unknown as AepEvent;
  }

  /** Asks the relay for the roster and resolves with its entries. */
  async roster(): Promise<Frame[]> {
    const id = `r${this.frames.length}`;
    this.send({ type: 'roster', id });
    const frame = await this.next((f) => f.type === 'roster' && f.id === id);
    return (frame.entries as Frame[]) ?? [];
  }

  close(): void {
    this.ws.close();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

let commandCounter = 0;

/**
 * An operator command event as a console sends it (no seq; `surface` extension attribute). An
 * instruction declares `capture: "redacted"`: its text is redacted-class (`extra` may override it).
 */
export function command(type: string, session: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}): AepEvent {
  commandCounter += 1;
  const capture = /^x\.[a-z0-9_-]+\.control\.instruct$/.test(type) ? { capture: 'redacted' } : {};
  return {
    aep: '0.1',
    id: `01KCMD${String(commandCounter).padStart(20, '0')}`,
    type,
    time: '2026-11-29T10:00:00.000Z',
    source: 'aep://test/console',
    agent: 'operator',
    session,
    surface: 'console',
    ...capture,
    data,
    ...extra,
  } as AepEvent;
}

/** A Claude Code hook payload. */
export function ccPayload(event: string, session: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { hook_event_name: event, session_id: session, cwd: '/work/project', transcript_path: '/tmp/t.jsonl', ...extra };
}
