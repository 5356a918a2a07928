/**
 * GET /api/sessions (the most recent sessions as a bare array: the first page) and
 * GET /api/sessions/page (keyset pages with a `next` cursor), most recent first, from the
 * `sessions_seen` index: neither reads the whole table.
 */
import type { SessionsPage, SessionsQuery } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import type { SessionsCursor, SessionsRepo } from '../store/sessions-repo';
import type { ApiHandlers } from './index';

/** Page size when the query names none. */
export const SESSIONS_DEFAULT_LIMIT = 200;
/** The largest page served. */
export const SESSIONS_MAX_LIMIT = 1_000;

/** Encodes a page position as an opaque cursor. */
export const encodeSessionsCursor = (c: SessionsCursor): string =>
  Buffer.from(JSON.stringify([c.lastSeenMs, c.source, c.session]), 'utf8').toString('base64url');

/** Decodes a cursor made by `encodeSessionsCursor`, or null when it is not one. */
export function decodeSessionsCursor(text: string): SessionsCursor | null {
  try {
    const value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as unknown;
    if (
      Array.isArray(value) &&
      value.length === 3 &&
      Number.isSafeInteger(value[0]) &&
      typeof value[1] === 'string' &&
      typeof value[2] === 'string'
    )
      return { lastSeenMs: value[0] as number, source: value[1], session: value[2] };
  } catch {
    // not a cursor
  }
  return null;
}

/** Parses `limit` and `cursor` of a sessions query. */
export function parseSessionsQuery(raw: unknown): Result<SessionsQuery> {
  const q = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  const out: { limit?: number; cursor?: string } = {};
  if (q.limit !== undefined) {
    const n = Number(q.limit);
    if (!Number.isSafeInteger(n) || n < 1 || n > SESSIONS_MAX_LIMIT)
      return err('bad-request', `limit must be an integer from 1 to ${SESSIONS_MAX_LIMIT}`);
    out.limit = n;
  }
  if (q.cursor !== undefined) {
    if (typeof q.cursor !== 'string' || decodeSessionsCursor(q.cursor) === null)
      return err(
        'bad-request',
        'cursor must be the `next` of a previous /api/sessions/page answer',
      );
    out.cursor = q.cursor;
  }
  return ok(out);
}

/** One page of the sessions repository. */
export function sessionsPage(sessions: SessionsRepo, q: SessionsQuery): SessionsPage {
  const limit = q.limit ?? SESSIONS_DEFAULT_LIMIT;
  const after = q.cursor === undefined ? null : decodeSessionsCursor(q.cursor);
  const page = sessions.page(limit, after);
  return {
    sessions: page.sessions,
    next: page.next === null ? null : encodeSessionsCursor(page.next),
    limit,
  };
}

/** The sessions routes over the sessions repository. */
export function sessionsApi(sessions: SessionsRepo): ApiHandlers {
  return {
    'GET /api/sessions': {
      parse: parseSessionsQuery,
      handle: (q) => sessionsPage(sessions, q ?? {}).sessions,
    },
    'GET /api/sessions/page': {
      parse: parseSessionsQuery,
      handle: (q) => sessionsPage(sessions, q),
    },
  };
}
