/**
 * HTTP emit binding (AEP-0003 §3.2): `POST /events` with one event (application/json) or an
 * NDJSON batch (application/x-ndjson). The batch is validated whole before anything is admitted;
 * `202` is sent only after the events are committed.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isCommandType } from '../../../common/aep/envelope';
import { parseBoundedJson } from '../aep/bounded-json';
import { parseEventJson, validateEvent } from '../aep/validate-event';
import { createLogger } from '../logger';
import { mediaType, readBody, sendError, sendJson } from '../server/http-util';
import type { HttpRoute } from '../server/route-table';
import type { Relay } from './relay';
import type { IngestItem } from './relay-types';

const log = createLogger('relay.http');

/** The versions this relay speaks. */
export const SUPPORTED_VERSIONS = ['0.1'] as const;

/** True when an `AEP-Version` header value names a supported version. */
export function supportsVersion(header: string | string[] | undefined): boolean {
  if (typeof header !== 'string') return false;
  const v = header.trim();
  return (SUPPORTED_VERSIONS as readonly string[]).includes(v);
}

type Parsed =
  { ok: true; items: IngestItem[] } | { ok: false; status: number; body: Record<string, unknown> };

/** The JSON text kept for an event: verbatim unless it spans lines (SSE needs one data: line). */
function keepText(text: string, event: unknown): string {
  return /[\r\n]/.test(text) ? JSON.stringify(event) : text;
}

const commandRefusal = (type: string, where: Record<string, unknown> = {}): Parsed => ({
  ok: false,
  status: 403,
  body: {
    error: 'control-not-allowed',
    detail: `${type} is a control command; commands flow only on authenticated WebSocket connections (AEP-0004 §4.1)`,
    ...where,
  },
});

/** Parses and validates a single-event body. */
export function parseSingle(text: string): Parsed {
  const value = parseBoundedJson(text);
  if (!value.ok)
    return {
      ok: false,
      status: 400,
      body: { error: 'invalid-event', detail: value.error.message },
    };
  const valid = validateEvent(value.value);
  if (!valid.ok)
    return {
      ok: false,
      status: 400,
      body: { error: 'invalid-event', detail: valid.error.message },
    };
  if (isCommandType(valid.value.type)) return commandRefusal(valid.value.type);
  return { ok: true, items: [{ event: valid.value, json: keepText(text.trim(), valid.value) }] };
}

/** Parses and validates an NDJSON batch; the first failing line rejects the batch whole. */
export function parseBatch(text: string, maxEvents: number): Parsed {
  const lines = text.split('\n');
  const items: IngestItem[] = [];
  let count = 0;
  for (const raw of lines) if (raw.trim() !== '') count++;
  if (count > maxEvents) {
    return {
      ok: false,
      status: 413,
      body: {
        error: 'too-many-events',
        detail: `the batch holds ${count} events; at most ${maxEvents} per request`,
      },
    };
  }
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].endsWith('\r') ? lines[i].slice(0, -1) : lines[i];
    if (line.trim() === '') continue;
    const parsed = parseEventJson(line);
    if (!parsed.ok) {
      return {
        ok: false,
        status: 400,
        body: {
          error: 'invalid-event',
          detail: `line ${i + 1}: ${parsed.error.message}`,
          index: i,
          line: i + 1,
        },
      };
    }
    if (isCommandType(parsed.value.type))
      return commandRefusal(parsed.value.type, { index: i, line: i + 1 });
    items.push({ event: parsed.value, json: line.trim() });
  }
  return { ok: true, items };
}

/** The `POST /events` route. */
export function postEventsRoute(relay: Relay): HttpRoute {
  return {
    method: 'POST',
    path: '/events',
    auth: 'hook',
    handler: async (req: IncomingMessage, res: ServerResponse) => {
      if (!supportsVersion(req.headers['aep-version'])) {
        readBody(req, 0).catch(() => undefined);
        return sendJson(res, 426, { versions: [...SUPPORTED_VERSIONS] });
      }
      const type = mediaType(req);
      const batch = type === 'application/x-ndjson';
      if (!batch && type !== 'application/json') {
        readBody(req, 0).catch(() => undefined);
        return sendError(
          res,
          415,
          'unsupported-media-type',
          'send application/json (one event) or application/x-ndjson (a batch)',
        );
      }
      const body = await readBody(req, relay.limits.maxBodyBytes);
      if (!body.ok) {
        if (body.error.code === 'too-large')
          return sendError(res, 413, 'payload-too-large', body.error.message, {
            limit: relay.limits.maxBodyBytes,
          });
        return;
      }
      const text = body.value.toString('utf8');
      if (text.trim() === '') return sendError(res, 400, 'invalid-event', 'the body is empty');
      const parsed = batch ? parseBatch(text, relay.limits.maxBatchEvents) : parseSingle(text);
      if (!parsed.ok) return sendJson(res, parsed.status, parsed.body);
      let admitted: boolean[];
      try {
        admitted = await relay.ingest(parsed.items);
      } catch (e) {
        log.error('ingest failed', { error: String(e) });
        return sendError(
          res,
          503,
          'store-unavailable',
          'the events could not be committed; retry with the same ids',
        );
      }
      const stored = admitted.filter(Boolean).length;
      sendJson(res, 202, {
        accepted: parsed.items.length,
        duplicates: parsed.items.length - stored,
      });
    },
  };
}
