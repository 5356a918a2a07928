/**
 * Full-text search over stored events through the FTS5 index of migration 0090: newest first,
 * keyset-paged by the event's row number, optionally within one session.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { SearchHit } from '../../../common/api';

/** What a search asks for. */
export interface SearchInput {
  /** An FTS5 query over the events' text. */
  readonly q: string;
  readonly session?: string;
  readonly limit: number;
  /** Only rows below this row number (the previous page's `next`). */
  readonly before?: number;
}

/** One page of hits; `next` is the `before` of the following page, null at the end. */
export interface SearchResult {
  readonly hits: SearchHit[];
  readonly next: number | null;
}

/** The query does not parse as FTS5 syntax (a caller's mistake, never an internal error). */
export class SearchQueryError extends Error {}

/** The token migration 0090 indexes for a session id: 's' + the hex of its UTF-8 bytes. */
export const sessionToken = (session: string): string =>
  `s${Buffer.from(session, 'utf8').toString('hex')}`;

const SNIPPET_TOKENS = 16;

/** Search over the `events_fts` index. */
export class EventSearch {
  private readonly stmt: Statement;

  constructor(db: Database) {
    const sql = `
      SELECT e.n AS n, e.session AS session, e.id AS id, e.type AS type, e.time AS time,
             snippet(events_fts, 1, '[', ']', '…', ${SNIPPET_TOKENS}) AS snippet
      FROM events_fts CROSS JOIN events e ON e.n = events_fts.rowid
      WHERE events_fts MATCH ? AND events_fts.rowid < ?
      ORDER BY events_fts.rowid DESC LIMIT ?`;
    // CROSS JOIN keeps the index as the outer loop (one MATCH, newest first); the session narrows
    // inside the MATCH through its token, exact by construction (never a per-row MATCH per event).
    this.stmt = db.prepare(sql);
  }

  /** One page of hits, newest first. Throws SearchQueryError for a query FTS5 cannot parse. */
  search(input: SearchInput): SearchResult {
    const text = input.q.trim();
    if (text === '') throw new SearchQueryError('the query is empty');
    // The user's expression applies to the text only; the session narrows through its own column.
    const body = `{body} : (${text})`;
    const before = input.before ?? Number.MAX_SAFE_INTEGER;
    let rows: (SearchHit & { n: number })[];
    try {
      const match =
        input.session === undefined
          ? body
          : `${body} AND {session} : ${sessionToken(input.session)}`;
      rows = this.stmt.all(match, before, input.limit + 1) as (SearchHit & { n: number })[];
    } catch (error) {
      // The statements are prepared already: a plain SQLITE_ERROR now comes from parsing the MATCH
      // expression ("unterminated string", "fts5: syntax error near …", "no such column: …").
      // Busy, I/O and corruption errors carry other codes and stay internal errors.
      if ((error as { code?: unknown }).code === 'SQLITE_ERROR')
        throw new SearchQueryError((error as Error).message.replace(/^fts5: /, ''));
      throw error;
    }
    const more = rows.length > input.limit;
    const kept = more ? rows.slice(0, input.limit) : rows;
    return {
      hits: kept.map(({ session, id, type, time, snippet }) => ({
        session,
        id,
        type,
        time,
        snippet: snippet ?? '',
      })),
      next: more ? kept[kept.length - 1].n : null,
    };
  }
}
