/**
 * A client of one OpenHands agent server (research/openhands/FACTS.md §2–§6): the REST calls under
 * `/api` with the `X-Session-API-Key` header, and one conversation's event WebSocket
 * (`/sockets/events/{id}`) authenticated by its first frame (`{"type":"auth",...}`), never by a
 * query or header key. Replies are validated; an error carries the HTTP status so callers can tell
 * a wrong key (401) from an unknown conversation (404/400) from a server that is down.
 */
import WebSocket from 'ws';
import type { z } from 'zod';
import {
  conversationPageSchema,
  eventPageSchema,
  parseEvent,
  parseEventFrame,
  serverInfoSchema,
  MAX_FRAME_BYTES,
  type ConversationInfo,
  type OhEvent,
  type ServerInfo,
} from './wire';

/** A failed call: `status` is the HTTP status, or 0 when the server could not be reached. */
export class OpenHandsError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

/** One page of a conversation's events, in log order. */
export interface EventPage {
  readonly events: readonly OhEvent[];
  /** Frames the page held that are not events, with the reason. */
  readonly skipped: readonly string[];
  readonly next: string | null;
}

const TIMEOUT_MS = 15_000;

/** The REST side of one agent server. */
export class OpenHandsRest {
  constructor(
    readonly baseUrl: string,
    private readonly key: string,
  ) {}

  /** `GET /server_info` (no key needed). */
  serverInfo(): Promise<ServerInfo> {
    return this.call('GET', '/server_info', undefined, serverInfoSchema, false);
  }

  /** Every conversation, through `/api/conversations/search` paging. */
  async conversations(): Promise<ConversationInfo[]> {
    const out: ConversationInfo[] = [];
    let page: string | null = null;
    for (let i = 0; i < 1_000; i++) {
      const query: string = `?limit=100${page ? `&page_id=${encodeURIComponent(page)}` : ''}`;
      const reply = await this.call('GET', `/api/conversations/search${query}`, undefined, conversationPageSchema);
      out.push(...reply.items);
      page = reply.next_page_id ?? null;
      if (page === null) break;
    }
    return out;
  }

  /** One conversation; null when the server does not know it (404). */
  async conversation(id: string): Promise<ConversationInfo | null> {
    try {
      return await this.call('GET', `/api/conversations/${encodeURIComponent(id)}`, undefined, conversationPageSchema.shape.items.element);
    } catch (error) {
      if (error instanceof OpenHandsError && error.status === 404) return null;
      throw error;
    }
  }

  /** One page of events starting at `pageId` (the page starts at that event), in log order. */
  async events(id: string, pageId: string | null): Promise<EventPage> {
    const query = `?limit=100&sort_order=TIMESTAMP${pageId ? `&page_id=${encodeURIComponent(pageId)}` : ''}`;
    const reply = await this.call('GET', `/api/conversations/${encodeURIComponent(id)}/events/search${query}`, undefined, eventPageSchema);
    const events: OhEvent[] = [];
    const skipped: string[] = [];
    for (const item of reply.items) {
      const parsed = parseEvent(item);
      if (parsed.ok) events.push(parsed.event);
      else skipped.push(parsed.reason);
    }
    return { events, skipped, next: reply.next_page_id ?? null };
  }

  /** Appends a user message; `run` stays false (the running loop reads it at its next step). */
  sendMessage(id: string, text: string): Promise<unknown> {
    const body = { role: 'user', content: [{ type: 'text', text }], run: false };
    return this.post(`/api/conversations/${encodeURIComponent(id)}/events`, body);
  }

  pause(id: string): Promise<unknown> {
    return this.post(`/api/conversations/${encodeURIComponent(id)}/pause`, {});
  }

  interrupt(id: string): Promise<unknown> {
    return this.post(`/api/conversations/${encodeURIComponent(id)}/interrupt`, {});
  }

  respondToConfirmation(id: string, accept: boolean, reason?: string): Promise<unknown> {
    const body = accept ? { accept: true } : { accept: false, ...(reason ? { reason } : {}) };
    return this.post(`/api/conversations/${encodeURIComponent(id)}/events/respond_to_confirmation`, body);
  }

  private post(path: string, body: unknown): Promise<unknown> {
    return this.call('POST', path, body, null);
  }

  private async call<T extends z.ZodType>(
    method: string,
    path: string,
    body: unknown,
    schema: T | null,
    withKey = true,
  ): Promise<z.infer<T>> {
    const headers: Record<string, string> = { accept: 'application/json' };
    if (withKey && this.key !== '') headers['x-session-api-key'] = this.key;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Response;
    try {
      res = await fetch(new URL(path, this.baseUrl), {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (error) {
      throw new OpenHandsError(0, `cannot reach the OpenHands agent server at ${this.baseUrl}: ${(error as Error).cause instanceof Error ? ((error as Error).cause as Error).message : (error as Error).message}`);
    }
    const text = await res.text();
    if (!res.ok) {
      let detail = text.slice(0, 300);
      try {
        const d = (JSON.parse(text) as { detail?: unknown }).detail;
        if (d !== undefined) detail = typeof d === 'string' ? d : JSON.stringify(d).slice(0, 300);
      } catch {
        // Not JSON: the text as it came.
      }
      const what = res.status === 401 ? 'the session API key was refused (401)' : `${method} ${path.split('?')[0]} answered ${res.status}`;
      throw new OpenHandsError(res.status, `${what}: ${detail}`);
    }
    if (schema === null) return undefined as z.infer<T>;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw new OpenHandsError(res.status, `${path.split('?')[0]} did not answer JSON`);
    }
    const parsed = schema.safeParse(value);
    if (!parsed.success) throw new OpenHandsError(res.status, `${path.split('?')[0]} answered an unexpected shape: ${parsed.error.issues[0]?.message ?? ''}`);
    return parsed.data;
  }
}

/** Close codes the server uses after the handshake (FACTS.md §3.3). */
export const CLOSE_AUTH_FAILED = 4001;
export const CLOSE_NOT_FOUND = 4004;

export interface SocketHandlers {
  /** The first frame (the `full_state` snapshot) arrived: the subscription is live. */
  readonly onOpen: () => void;
  readonly onEvent: (event: OhEvent) => void;
  /** A frame that is not an event (malformed, oversized, a ServerErrorEvent), with the reason. */
  readonly onSkipped: (reason: string) => void;
  readonly onClose: (code: number, reason: string) => void;
}

/**
 * Opens one conversation's event socket: replay of events at or after `afterTimestamp` (the
 * vendor's naive timestamp, as seen), or of the whole log when null; the key goes in the first frame.
 */
export function openEventSocket(
  baseUrl: string,
  key: string,
  conversation: string,
  afterTimestamp: string | null,
  handlers: SocketHandlers,
): { close(): void } {
  const url = new URL(`/sockets/events/${encodeURIComponent(conversation)}`, baseUrl);
  url.protocol = url.protocol === 'https:' ? 'wss:' : 'ws:';
  if (afterTimestamp === null) url.searchParams.set('resend_mode', 'all');
  else {
    url.searchParams.set('resend_mode', 'since');
    url.searchParams.set('after_timestamp', afterTimestamp);
  }
  const ws = new WebSocket(url, { maxPayload: MAX_FRAME_BYTES * 4 });
  let opened = false;
  let closed = false;
  const close = (code: number, reason: string): void => {
    if (closed) return;
    closed = true;
    handlers.onClose(code, reason);
  };
  ws.on('open', () => ws.send(JSON.stringify({ type: 'auth', session_api_key: key })));
  ws.on('message', (raw, isBinary) => {
    if (isBinary) return handlers.onSkipped('binary frame');
    const parsed = parseEventFrame(String(raw));
    if (!parsed.ok) return handlers.onSkipped(parsed.reason);
    if (parsed.event.kind === 'ServerErrorEvent')
      return handlers.onSkipped(`the server reported ${String(parsed.event.code)}: ${String(parsed.event.detail ?? '')}`);
    if (!opened) {
      opened = true;
      handlers.onOpen();
    }
    handlers.onEvent(parsed.event);
  });
  ws.on('unexpected-response', (_req, res) => {
    close(res.statusCode === 403 ? CLOSE_AUTH_FAILED : 1006, `handshake refused (${res.statusCode})`);
    ws.terminate();
  });
  ws.on('error', (error) => close(1006, error.message));
  ws.on('close', (code, reason) => close(code, reason.toString()));
  return {
    close: () => {
      closed = true;
      ws.terminate();
    },
  };
}
