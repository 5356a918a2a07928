/**
 * GET /api/search: search over stored events (what the capture level kept) as typed text, or as
 * an FTS5 expression in advanced mode, newest first, optionally within one session, keyset-paged.
 * A query that cannot be searched answers 400 `bad-query` with a plain sentence, never 500.
 */
import type { SearchPage, SearchQuery } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import type { DaemonContext } from '../daemon-context';
import { EventSearch, SearchQueryError } from '../store/event-search';
import { SearchIndexer, type SearchIndexerOptions } from '../store/search-indexer';
import { apiError, type ApiHandlers } from './index';

/** Hits per page when the query names none. */
export const SEARCH_DEFAULT_LIMIT = 50;
/** The largest page served. */
export const SEARCH_MAX_LIMIT = 200;
/** Longest accepted query text. */
export const SEARCH_MAX_QUERY = 1_000;

const encodeCursor = (n: number): string => Buffer.from(String(n), 'utf8').toString('base64url');
const decodeCursor = (text: string): number | null => {
  const n = Number(Buffer.from(text, 'base64url').toString('utf8'));
  return Number.isSafeInteger(n) && n > 0 ? n : null;
};

/** Validates the query string of a search. */
export function parseSearchQuery(raw: unknown): Result<SearchQuery> {
  const q = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (typeof q.q !== 'string' || q.q.trim() === '')
    return err('bad-query', 'Type something to search for.');
  if (q.q.length > SEARCH_MAX_QUERY)
    return err('bad-query', `A search can be at most ${SEARCH_MAX_QUERY} characters long.`);
  const out: {
    q: string;
    mode?: 'text' | 'advanced';
    session?: string;
    limit?: number;
    cursor?: string;
  } = { q: q.q };
  if (q.mode !== undefined) {
    if (q.mode !== 'text' && q.mode !== 'advanced')
      return err('bad-request', 'mode must be text or advanced');
    out.mode = q.mode;
  }
  if (q.session !== undefined) {
    if (typeof q.session !== 'string' || q.session === '')
      return err('bad-request', 'session must be a non-empty string');
    out.session = q.session;
  }
  if (q.limit !== undefined) {
    const n = Number(q.limit);
    if (!Number.isSafeInteger(n) || n < 1 || n > SEARCH_MAX_LIMIT)
      return err('bad-request', `limit must be an integer from 1 to ${SEARCH_MAX_LIMIT}`);
    out.limit = n;
  }
  if (q.cursor !== undefined) {
    if (typeof q.cursor !== 'string' || decodeCursor(q.cursor) === null)
      return err('bad-request', 'cursor must be the `next` of a previous /api/search answer');
    out.cursor = q.cursor;
  }
  return ok(out);
}

/** The search route and the indexer behind it; `close` stops the indexer. */
export function startSearch(
  ctx: Pick<DaemonContext, 'db' | 'relay'>,
  options: SearchIndexerOptions = {},
): { handlers: ApiHandlers; indexer: SearchIndexer; close: () => void } {
  const indexer = new SearchIndexer(ctx.db, options);
  // Indexing follows what is stored: a burst of events wakes one background run; an idle daemon runs none.
  const unsubscribe = ctx.relay.onAdmitted(() => indexer.wake());
  const search = new EventSearch(ctx.db);
  const handlers: ApiHandlers = {
    'GET /api/search': {
      parse: parseSearchQuery,
      handle: async (q): Promise<SearchPage | ReturnType<typeof apiError>> => {
        // Whatever was committed before the search is searchable (indexed batch by batch, yielding).
        await indexer.run();
        try {
          const page = search.search({
            q: q.q,
            mode: q.mode,
            session: q.session,
            limit: q.limit ?? SEARCH_DEFAULT_LIMIT,
            before: q.cursor === undefined ? undefined : (decodeCursor(q.cursor) ?? undefined),
          });
          return { hits: page.hits, next: page.next === null ? null : encodeCursor(page.next) };
        } catch (e) {
          if (e instanceof SearchQueryError) return apiError(400, 'bad-query', e.message);
          throw e;
        }
      },
    },
  };
  return {
    handlers,
    indexer,
    close: () => {
      unsubscribe();
      indexer.close();
    },
  };
}
