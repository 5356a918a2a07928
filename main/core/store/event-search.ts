/**
 * Search over stored events: what a user types is searched as text through the FTS5 index of
 * migration 0090 (newest first, keyset-paged by the event's row number, optionally within one
 * session); FTS5's own query syntax only in the explicit advanced mode. A session id or an event or
 * command id typed as the whole query also finds its session. Errors are plain sentences.
 */
import type { Database, Statement } from 'better-sqlite3';
import type { SearchHit } from '../../../common/api';

/** What a search asks for. */
export interface SearchInput {
  /** What the user typed. */
  readonly q: string;
  /** `advanced`: `q` is an FTS5 query expression; otherwise it is text. */
  readonly mode?: 'text' | 'advanced';
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

/** The query cannot be searched (a caller's mistake, never an internal error); the message is a plain sentence. */
export class SearchQueryError extends Error {}

/** The token migration 0090 indexes for a session id: 's' + the hex of its UTF-8 bytes. */
export const sessionToken = (session: string): string =>
  `s${Buffer.from(session, 'utf8').toString('hex')}`;

const SNIPPET_TOKENS = 16;
/** Session ids found by a typed prefix, at most. */
const PREFIX_SESSIONS = 5;
/** The shortest typed prefix of a session id that is looked up. */
const MIN_ID_PREFIX = 6;
/** Something FTS5's unicode61 tokenizer indexes: a letter or a digit. */
const TOKEN_CHAR = /[\p{L}\p{N}]/u;

/**
 * The FTS5 expression that searches `text` as typed: every whitespace-separated word, and every
 * "quoted phrase", becomes an FTS5 string (so hyphens, paths, dots, colons and operators are text),
 * all of them required; a word ending in `*` stays a prefix search. Words with nothing the index
 * holds (a lone `-`, `*`, `(`) are left out. Returns null when nothing searchable remains.
 */
export function textQuery(text: string): string | null {
  const parts: string[] = [];
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  // A "phrase" (closed or running to the end) or a run of non-space characters.
  for (const m of text.matchAll(/"([^"]*)"?|(\S+)/g)) {
    const phrase = m[1];
    if (phrase !== undefined) {
      if (TOKEN_CHAR.test(phrase)) parts.push(quote(phrase));
      continue;
    }
    const word = m[2];
    const prefix = word.length > 1 && word.endsWith('*');
    const body = prefix ? word.replace(/\*+$/, '') : word;
    if (!TOKEN_CHAR.test(body)) continue;
    parts.push(prefix ? `${quote(body)} *` : quote(body));
  }
  return parts.length === 0 ? null : parts.join(' ');
}

/** FTS5's parser message for an advanced query, said as a plain sentence. */
export function advancedQueryMessage(raw: string): string {
  const reason = raw.replace(/^fts5: /, '');
  const column = /^no such column: (.*)$/.exec(reason);
  if (column)
    return `“${column[1]}:” is not something to search in; put the word in quotes to search for it.`;
  const near = /^syntax error near "(.*)"$/.exec(reason);
  if (near)
    return near[1] === ''
      ? 'The query ends too early: an operator or bracket is missing its other side.'
      : `The query cannot be read near “${near[1]}”: check its quotes, brackets and operators.`;
  if (/unterminated string/.test(reason)) return 'A quote in the query is not closed.';
  return 'The query cannot be read: check its quotes, brackets and operators, or turn advanced search off to search the text as typed.';
}

type Row = SearchHit & { n: number };

/** Search over the `events_fts` index, plus id look-ups. */
export class EventSearch {
  private readonly stmt: Statement;
  private readonly byEventId: Statement;
  private readonly sessionsFrom: Statement;
  private readonly firstOfSession: Statement;
  private readonly commandSessions: Statement;

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
    this.byEventId = db.prepare(
      `SELECT n, session, id, type, time FROM events WHERE id = ? LIMIT 5`,
    );
    // A range over the session-order index: the sessions whose id starts with the typed text.
    this.sessionsFrom = db.prepare(
      `SELECT DISTINCT session FROM events WHERE session >= ? AND session < ? LIMIT ${PREFIX_SESSIONS}`,
    );
    this.firstOfSession = db.prepare(
      `SELECT n, session, id, type, time FROM events WHERE session = ?
       ORDER BY ord_epoch, ord_seq, ord_tie LIMIT 1`,
    );
    this.commandSessions = db.prepare(
      `SELECT session FROM steering WHERE command_id = @id
       UNION SELECT session FROM agent_inputs WHERE command_id = @id
       UNION SELECT session FROM control_acks WHERE command_id = @id AND session IS NOT NULL
       LIMIT 5`,
    );
  }

  /** One page of hits, newest first. Throws SearchQueryError (a plain sentence) for a query that cannot be searched. */
  search(input: SearchInput): SearchResult {
    const text = input.q.trim();
    if (text === '') throw new SearchQueryError('Type something to search for.');
    const ids = input.before === undefined ? this.idHits(text, input.session) : [];
    const expr = input.mode === 'advanced' ? `(${text})` : textQuery(text);
    if (expr === null) {
      if (ids.length > 0) return { hits: ids, next: null };
      throw new SearchQueryError(
        'Type a word or a number to search for: punctuation alone is not indexed.',
      );
    }
    // The user's expression applies to the text only; the session narrows through its own column.
    const body = `{body} : ${expr}`;
    const before = input.before ?? Number.MAX_SAFE_INTEGER;
    let rows: Row[];
    try {
      const match =
        input.session === undefined
          ? body
          : `${body} AND {session} : ${sessionToken(input.session)}`;
      rows = this.stmt.all(match, before, input.limit + 1) as Row[];
    } catch (error) {
      // The statements are prepared already: a plain SQLITE_ERROR now comes from parsing the MATCH
      // expression. Busy, I/O and corruption errors carry other codes and stay internal errors.
      if ((error as { code?: unknown }).code === 'SQLITE_ERROR')
        throw new SearchQueryError(advancedQueryMessage((error as Error).message));
      throw error;
    }
    const more = rows.length > input.limit;
    const kept = more ? rows.slice(0, input.limit) : rows;
    const seen = new Set(ids.map((h) => `${h.session}\n${h.id}`));
    const hits = kept
      .map(({ session, id, type, time, snippet }) => ({
        session,
        id,
        type,
        time,
        snippet: snippet ?? '',
      }))
      .filter((h) => !seen.has(`${h.session}\n${h.id}`));
    return { hits: [...ids, ...hits], next: more ? kept[kept.length - 1].n : null };
  }

  /** Hits for a query that is one identifier: an event or command id, a session id or its prefix. */
  private idHits(text: string, session: string | undefined): SearchHit[] {
    if (/\s/.test(text) || text.length > 512) return [];
    const inScope = (s: string) => session === undefined || s === session;
    const hits: SearchHit[] = [];
    const add = (row: Row | undefined, snippet: string) => {
      if (
        row &&
        inScope(row.session) &&
        !hits.some((h) => h.session === row.session && h.id === row.id)
      )
        hits.push({ session: row.session, id: row.id, type: row.type, time: row.time, snippet });
    };
    for (const row of this.byEventId.all(text) as Row[]) add(row, `event [${text}]`);
    for (const { session: s } of this.commandSessions.all({ id: text }) as { session: string }[])
      add(this.firstOfSession.get(s) as Row | undefined, `command [${text}] · session ${s}`);
    const sessions =
      text.length >= MIN_ID_PREFIX
        ? (this.sessionsFrom.all(text, `${text}\u{10ffff}`) as { session: string }[]).map(
            (r) => r.session,
          )
        : [text];
    for (const s of sessions) add(this.firstOfSession.get(s) as Row | undefined, `session [${s}]`);
    return hits;
  }
}
