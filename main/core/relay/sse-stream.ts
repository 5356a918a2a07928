/**
 * SSE binding (AEP-0003 §3.3): `GET /stream` with `filter`, `capture`, `from` (positions or
 * `all`), `Last-Event-ID` and `live=0`. LF-only framing, one `data:` line per event, `id:` =
 * `session:epoch:seq` for positioned events, `: replay-exhausted` comments, `: ping` heartbeats.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CAPTURES, type Capture } from '../../../common/aep/envelope';
import { parseBoundedJson } from '../aep/bounded-json';
import { hasControlCharacter } from '../aep/envelope-bounds';
import { parseFilter } from '../aep/filter';
import { createLogger } from '../logger';
import { sendError } from '../server/http-util';
import type { HttpRoute, RequestContext } from '../server/route-table';
import type { EventHead } from './fanout-item';
import { parseFromParam, parseLastEventId, positionId, type ReplayFrom } from './positions';
import type { Relay } from './relay';
import { Subscription, type DeliveryTransport } from './subscription';
import { joinForTurn } from './turn-join';

const log = createLogger('relay.sse');
let streamCounter = 0;

/** Parses the subscription parameters of a stream request; a 400 body on failure. */
export function parseStreamRequest(
  req: IncomingMessage,
  url: URL,
  maxFrom: number,
):
  | { ok: true; filterSpec: unknown; capture?: Capture; from?: ReplayFrom; live: boolean }
  | { ok: false; error: string; detail: string } {
  const q = url.searchParams;
  let filterSpec: unknown = {};
  const filterText = q.get('filter');
  if (filterText !== null && filterText !== '') {
    const parsed = parseBoundedJson(filterText);
    if (!parsed.ok)
      return {
        ok: false,
        error: 'invalid-filter',
        detail: `filter must be URL-encoded attr-match JSON (${parsed.error.message})`,
      };
    filterSpec = parsed.value;
  }
  const captureText = q.get('capture');
  let capture: Capture | undefined;
  if (captureText !== null && captureText !== '') {
    if (!(CAPTURES as readonly string[]).includes(captureText)) {
      return {
        ok: false,
        error: 'invalid-capture',
        detail: `capture must be one of ${CAPTURES.join(', ')}`,
      };
    }
    capture = captureText as Capture;
  }
  let from: ReplayFrom | undefined;
  const fromText = q.get('from');
  if (fromText !== null) {
    const parsed = parseFromParam(fromText, maxFrom);
    if (!parsed.ok) return { ok: false, error: parsed.error.code, detail: parsed.error.message };
    from = parsed.value;
  } else {
    const last = req.headers['last-event-id'];
    if (typeof last === 'string' && last !== '') {
      const parsed = parseLastEventId(last);
      if (!parsed.ok) return { ok: false, error: parsed.error.code, detail: parsed.error.message };
      from = [parsed.value];
    }
  }
  const liveText = q.get('live');
  let live = true;
  if (liveText !== null) {
    if (liveText === '0' || liveText === 'false') live = false;
    else if (liveText !== '1' && liveText !== 'true')
      return { ok: false, error: 'invalid-parameter', detail: 'live must be 0 or 1' };
  }
  return { ok: true, filterSpec, capture, from, live };
}

/**
 * One SSE message: `event:`, `id:` for positioned events, and the JSON on a single `data:` line.
 * `head` only needs type, session, epoch and seq; `event` (the full envelope, possibly a lazy
 * getter) is read only when the JSON spans lines and must be re-encoded.
 */
export function sseMessage(
  head: EventHead,
  json: string,
  event: () => unknown = () => JSON.parse(json),
): string {
  const position = positionId(head.session, head.epoch, head.seq);
  // Ingest refuses control characters in routing attributes; a row stored before that rule
  // still never gets to forge SSE lines: its position is simply not offered as an id.
  const id = position !== null && hasControlCharacter(position) ? null : position;
  // Ingest keeps single-line JSON; re-encoding is the guard for anything else.
  const line = json.includes('\n') || json.includes('\r') ? JSON.stringify(event()) : json;
  const type = hasControlCharacter(head.type) ? 'message' : head.type;
  return `event: ${type}\n${id === null ? '' : `id: ${id}\n`}data: ${line}\n\n`;
}

/** The `GET /stream` route. */
export function sseRoute(relay: Relay): HttpRoute {
  return {
    method: 'GET',
    path: '/stream',
    auth: 'watch',
    // EventSource cannot send headers: the browser console passes its token in the query.
    queryToken: true,
    handler: async (req: IncomingMessage, res: ServerResponse, ctx: RequestContext) => {
      const parsed = parseStreamRequest(req, ctx.url, relay.limits.maxFromPositions);
      if (!parsed.ok) return sendError(res, 400, parsed.error, parsed.detail);
      const filter = parseFilter(parsed.filterSpec);
      if (!filter.ok) return sendError(res, 400, 'invalid-filter', filter.error.message);
      if (relay.closing) return sendError(res, 503, 'shutting-down', 'the daemon is shutting down');

      res.writeHead(200, {
        'Content-Type': 'text/event-stream; charset=utf-8',
        'Cache-Control': 'no-store',
        Connection: 'keep-alive',
        'X-Accel-Buffering': 'no',
      });
      res.write(': connected\n\n');
      const socket = res.socket;
      socket?.setNoDelay(true);

      let closed = false;
      // Messages of one turn are joined into one write (one HTTP chunk) instead of one per event.
      // They are kept as bytes (each event's message encoded once, shared by every stream), so a
      // flush is one memcpy per message, not a string flatten plus a UTF-8 length and encode pass.
      let outbox: Buffer[] = [];
      let outboxBytes = 0;
      let flushScheduled = false;
      let drainWaiters: (() => void)[] = [];
      const wakeDrain = (): void => {
        const waiters = drainWaiters;
        drainWaiters = [];
        for (const w of waiters) w();
      };
      const flush = (): void => {
        flushScheduled = false;
        if (closed || outboxBytes === 0) return;
        const chunk = joinForTurn(outbox, outboxBytes);
        outbox = [];
        outboxBytes = 0;
        res.write(chunk);
      };
      const write = (chunk: Buffer): void => {
        if (closed) return;
        outbox.push(chunk);
        outboxBytes += chunk.length;
        if (!flushScheduled) {
          flushScheduled = true;
          process.nextTick(flush);
        }
      };
      const writeText = (text: string): void => write(Buffer.from(text, 'utf8'));
      const finish = (comment: string | null, destroyAfterMs: number): void => {
        if (closed) return;
        flush();
        if (comment !== null) res.write(`: ${comment}\n\n`);
        closed = true;
        res.end();
        wakeDrain();
        cleanup();
        // A consumer that never reads would hold the socket (and its buffered bytes) forever.
        setTimeout(() => {
          if (!res.writableFinished) res.destroy();
        }, destroyAfterMs).unref();
      };
      const transport: DeliveryTransport = {
        bufferedBytes: () => res.writableLength + outboxBytes,
        sendEvent: (rendered) => {
          write(
            (rendered.sse ??= Buffer.from(
              sseMessage(rendered.head, rendered.json, () => rendered.event),
              'utf8',
            )),
          );
        },
        sendReplayExhausted: (session, earliest) =>
          writeText(`: replay-exhausted ${session} ${earliest.epoch}:${earliest.seq}\n\n`),
        drained: () => {
          flush();
          if (closed || res.writableLength === 0) return Promise.resolve();
          return new Promise<void>((resolve) => {
            // 'drain' is the usual wake-up; the poll covers a write that never crossed the high-water mark.
            const poll = setInterval(() => {
              if (closed || res.writableLength < relay.limits.softBytes / 2) wakeDrain();
            }, 20);
            drainWaiters.push(() => {
              clearInterval(poll);
              resolve();
            });
          });
        },
        overflow: (reason) => {
          log.info('disconnecting a slow SSE consumer', { reason });
          finish(`closing ${reason}`, 1_000);
        },
        isClosed: () => closed,
      };
      const sub = new Subscription(
        {
          id: `sse-${++streamCounter}`,
          filter: filter.value,
          capture: parsed.capture,
          from: parsed.from,
        },
        transport,
        relay.store,
        relay.limits,
      );
      const removeSub = relay.addSubscription(sub);
      const untrack = relay.trackConnection({
        kind: 'sse',
        shutdown: (reason) => finish(reason, 2_000),
        subscriptionCount: () => (closed ? 0 : 1),
      });
      const ping = setInterval(() => writeText(': ping\n\n'), relay.limits.pingIntervalMs);
      ping.unref();
      function cleanup(): void {
        clearInterval(ping);
        removeSub();
        untrack();
      }
      res.on('drain', wakeDrain);
      res.on('close', () => {
        if (!closed) {
          closed = true;
          cleanup();
        }
        wakeDrain();
      });
      try {
        await sub.start({ live: parsed.live });
      } catch (e) {
        log.error('SSE replay failed', { error: String(e) });
        finish('error replay-failed', 1_000);
        return;
      }
      if (!parsed.live) finish(null, 5_000);
    },
  };
}
