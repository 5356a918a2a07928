/** Small helpers shared by every HTTP handler: JSON replies and bounded body reading. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { err, ok, type Result } from '../../../common/result';
import { parseBoundedJson } from '../aep/bounded-json';

/** Bytes of a refused upload read and discarded before the connection is cut. */
const DRAIN_SLACK = 64 << 20;

const NO_HEADERS: Record<string, string> = Object.freeze({}) as Record<string, string>;

/** Sends a JSON body with the given status (no-op when the response already ended). */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = NO_HEADERS,
): void {
  if (res.writableEnded || res.destroyed) return;
  const text = JSON.stringify(body);
  if (!res.headersSent) {
    const base = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      'Cache-Control': 'no-store',
    };
    res.writeHead(status, headers === NO_HEADERS ? base : { ...base, ...headers });
  }
  res.end(text);
}

/** Sends `{ error, detail? }` with the given status. */
export function sendError(
  res: ServerResponse,
  status: number,
  error: string,
  detail?: string,
  extra: Record<string, unknown> = {},
): void {
  sendJson(res, status, { error, ...(detail !== undefined ? { detail } : {}), ...extra });
}

/** The media type of a request without parameters, lower-cased ('' when absent). */
export function mediaType(req: IncomingMessage): string {
  return (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
}

/**
 * Reads a request body up to `limit` bytes. An oversize body is refused before it is buffered: the
 * rest is drained (up to a bound, then the socket is dropped) so the client can still read the 413.
 */
export function readBody(
  req: IncomingMessage,
  limit: number,
): Promise<Result<Buffer, 'too-large' | 'aborted'>> {
  return new Promise((resolve) => {
    const declared = Number(req.headers['content-length'] ?? NaN);
    if (Number.isFinite(declared) && declared > limit) {
      drain(req, limit);
      resolve(err('too-large', `body of ${declared} bytes exceeds the limit of ${limit} bytes`));
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const onData = (chunk: Buffer): void => {
      if (settled) return;
      size += chunk.length;
      if (size > limit) {
        settled = true;
        chunks.length = 0;
        req.off('data', onData);
        drain(req, limit);
        resolve(err('too-large', `body exceeds the limit of ${limit} bytes`));
        return;
      }
      chunks.push(chunk);
    };
    req.on('data', onData);
    req.on('end', () => {
      if (settled) return;
      settled = true;
      resolve(ok(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size)));
    });
    req.on('error', () => {
      if (settled) return;
      settled = true;
      resolve(err('aborted', 'request aborted'));
    });
    req.on('aborted', () => {
      if (settled) return;
      settled = true;
      resolve(err('aborted', 'request aborted'));
    });
  });
}

/** Discards the rest of a refused upload without buffering it (so the client reads the 413); gives up after a bound. */
function drain(req: IncomingMessage, limit: number): void {
  let discarded = 0;
  req.on('data', (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > limit * 4 + DRAIN_SLACK) req.socket.destroy();
  });
  req.resume();
}

/** Reads and parses a JSON body; `undefined` for an empty body. */
export async function readJsonBody(
  req: IncomingMessage,
  limit: number,
): Promise<Result<unknown, 'too-large' | 'aborted' | 'invalid-json'>> {
  const body = await readBody(req, limit);
  if (!body.ok) return body;
  return parseJsonBytes(body.value);
}

/** Parses a whole request body as JSON (the rule of `readJsonBody`); `undefined` for an empty body. */
export function parseJsonBytes(bytes: Buffer): Result<unknown, 'invalid-json'> {
  const text = bytes.toString('utf8').trim();
  if (text === '') return ok(undefined);
  // Nesting is bounded before anything is built (hook payloads and /api bodies alike).
  const parsed = parseBoundedJson(text);
  if (!parsed.ok) return err('invalid-json', `the body is refused: ${parsed.error.message}`);
  return ok(parsed.value);
}
