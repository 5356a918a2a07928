/**
 * Follows one conversation: its persisted events through REST paging from the last event seen
 * (the page starts at that event), then its live WebSocket with replay `since` the last event's
 * timestamp, deduplicated by event id so each event is delivered once even where the replay and
 * live fan-out overlap (FACTS.md §3.3). Delivery is serialized: the caller sees events in log
 * order. A dropped socket or an unreachable server is retried with backoff (from REST again); a
 * refused key (401, close 4001) and an unknown conversation (404, close 4004) are reported once
 * and never retried here.
 */
import { CLOSE_AUTH_FAILED, CLOSE_NOT_FOUND, OpenHandsError, openEventSocket, type OpenHandsRest } from './client';
import type { OhEvent } from './wire';

/** Where a conversation was read up to (persisted by the caller). */
export interface Cursor {
  readonly lastId: string | null;
  readonly lastTs: string | null;
}

export interface WatchDeps {
  readonly rest: OpenHandsRest;
  readonly key: string;
  readonly conversation: string;
  readonly cursor: Cursor;
  /** Delivers events in order; resolves once they are admitted (the cursor moves after). */
  readonly deliver: (events: readonly OhEvent[], cursor: Cursor) => Promise<void>;
  readonly skipped: (reason: string) => void;
  /** The key was refused, or the server does not know the conversation: not retried. */
  readonly fatal: (kind: 'unauthorized' | 'not-found', reason: string) => void;
  /** The server could not be reached (retrying); null once it answers again. */
  readonly trouble: (reason: string | null) => void;
  readonly backoffMs: { readonly initial: number; readonly max: number };
}

/** Ids remembered for deduplication per conversation (the overlap is at most one replay). */
const MAX_SEEN = 20_000;

/** Not in the persisted log: no cursor position (the snapshot, token deltas). */
const transient = (e: OhEvent): boolean => (e.kind === 'ConversationStateUpdateEvent' && e.key === 'full_state') || e.kind === 'StreamingDeltaEvent';

export class ConversationWatch {
  private readonly seen = new Set<string>();
  private cursor: Cursor;
  private socket: { close(): void } | null = null;
  private timer: NodeJS.Timeout | null = null;
  private chain: Promise<void> = Promise.resolve();
  private retryMs: number;
  private stopped = false;

  constructor(private readonly deps: WatchDeps) {
    this.cursor = deps.cursor;
    this.retryMs = deps.backoffMs.initial;
    if (deps.cursor.lastId) this.seen.add(deps.cursor.lastId);
  }

  start(): void {
    void this.attach();
  }

  stop(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.socket?.close();
    this.socket = null;
  }

  /** Resolves once everything received so far is delivered. */
  idle(): Promise<void> {
    return this.chain;
  }

  private async attach(): Promise<void> {
    if (this.stopped) return;
    try {
      let page: string | null = this.cursor.lastId;
      for (let i = 0; i < 100_000 && !this.stopped; i++) {
        const got = await this.deps.rest.events(this.deps.conversation, page);
        for (const reason of got.skipped) this.deps.skipped(`REST page: ${reason}`);
        this.take(got.events);
        if (got.next === null || got.next === page) break;
        page = got.next;
      }
    } catch (error) {
      return this.failed(error);
    }
    if (this.stopped) return;
    this.deps.trouble(null);
    this.socket = openEventSocket(this.deps.rest.baseUrl, this.deps.key, this.deps.conversation, this.cursor.lastTs, {
      onOpen: () => {
        this.retryMs = this.deps.backoffMs.initial;
      },
      onEvent: (e) => this.take([e]),
      onSkipped: (reason) => this.deps.skipped(reason),
      onClose: (code, reason) => {
        this.socket = null;
        if (this.stopped) return;
        if (code === CLOSE_AUTH_FAILED) return this.deps.fatal('unauthorized', `the event socket refused the session API key (close ${code}${reason ? `: ${reason}` : ''})`);
        if (code === CLOSE_NOT_FOUND) return this.deps.fatal('not-found', `the server does not know conversation ${this.deps.conversation} (close ${code})`);
        this.deps.trouble(`the event socket closed (${code}${reason ? `: ${reason}` : ''}); reconnecting`);
        this.retry();
      },
    });
  }

  private failed(error: unknown): void {
    if (this.stopped) return;
    const status = error instanceof OpenHandsError ? error.status : 0;
    const message = (error as Error).message;
    if (status === 401) return this.deps.fatal('unauthorized', message);
    if (status === 404) return this.deps.fatal('not-found', message);
    this.deps.trouble(message);
    this.retry();
  }

  private retry(): void {
    if (this.stopped || this.timer) return;
    const wait = this.retryMs;
    this.retryMs = Math.min(this.retryMs * 2, this.deps.backoffMs.max);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.attach();
    }, wait);
    this.timer.unref?.();
  }

  /** Queues the events not seen yet, in order. */
  private take(events: readonly OhEvent[]): void {
    const fresh = events.filter((e) => !this.seen.has(e.id));
    if (fresh.length === 0) return;
    for (const e of fresh) {
      this.seen.add(e.id);
      if (this.seen.size > MAX_SEEN) this.seen.delete(this.seen.values().next().value as string);
    }
    const last = [...fresh].reverse().find((e) => !transient(e));
    const cursor = last ? { lastId: last.id, lastTs: last.timestamp } : this.cursor;
    this.cursor = cursor;
    this.chain = this.chain.then(() => this.deps.deliver(fresh, cursor)).catch((error: unknown) => this.deps.skipped(`delivery failed: ${String(error)}`));
  }
}
