/**
 * Search over what the capture level kept (`GET /api/search`, FTS5 in the daemon): across
 * sessions on #/search, or within one session from its view. Hits show the matching text with
 * the matched words marked, newest first, with "more" for the next page.
 */
import { useEffect, useState } from 'react';
import type { SearchHit } from '../../../../common/api';
import { isInstruct } from '../../model/event-types';
import { isSendInput } from '../../model/input-items';
import { snippetParts } from '../../model/stream-filter';
import { useConsole } from '../../shell/console-context';
import { dateTime, shortPath } from '../../ui/format';

/** What kind of moment a hit is, in words (the event type stays in the tooltip). */
export function hitKind(type: string): string {
  if (type === 'run.started') return 'Prompt';
  if (type === 'tool.requested') return 'Tool call';
  if (type === 'tool.completed') return 'Tool result';
  if (type === 'tool.failed') return 'Tool failed';
  if (type.startsWith('attention.')) return 'Request';
  if (/^x\.[a-z0-9_-]+\.message\.replied$/.test(type)) return 'Reply';
  if (isInstruct(type)) return 'Instruction';
  if (isSendInput(type)) return 'Message';
  return type;
}

/** The hits of one query (within `session` when given). */
export function SearchResults({ q, session, advanced = false, onOpen }: { q: string; session?: string; advanced?: boolean; onOpen: (hit: SearchHit) => void }) {
  const { api, store } = useConsole();
  const [hits, setHits] = useState<SearchHit[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(false);

  const load = async (cursor?: string) => {
    setLoading(true);
    const r = await api('GET /api/search', { q, ...(advanced ? { mode: 'advanced' as const } : {}), ...(session ? { session } : {}), limit: 50, ...(cursor ? { cursor } : {}) });
    setLoading(false);
    if (!r.ok) {
      setError(r.error.message);
      return;
    }
    setError(null);
    setHits((h) => (cursor ? [...h, ...r.value.hits] : [...r.value.hits]));
    setNext(r.value.next);
  };
  useEffect(() => {
    setHits([]);
    setNext(null);
    if (q.trim()) void load();
  }, [q, session, advanced]);

  if (!q.trim()) return null;
  const cwdOf = (s: string) => store.sessions.find((x) => x.session === s)?.cwd ?? null;
  return (
    <section className="stack search-results" aria-label="Search results" data-testid="search-results">
      {error ? (
        <p className="small composer-blocked" role="alert" data-testid="search-error">
          {error}
        </p>
      ) : null}
      {!error && !loading && hits.length === 0 ? <p className="muted small">Nothing stored matches “{q}”. Content the capture level left out cannot be found.</p> : null}
      <ol className="search-list">
        {hits.map((h) => (
          <li key={`${h.session}\n${h.id}`}>
            <button type="button" className="search-hit" onClick={() => onOpen(h)} data-testid="search-hit" data-session={h.session} data-event={h.id}>
              <span className="small muted">
                {dateTime(h.time)} · <span data-testid="hit-kind" title={h.type}>{hitKind(h.type)}</span>
                {!session ? ` · ${cwdOf(h.session) ? shortPath(cwdOf(h.session)) : h.session.slice(0, 12)}` : ''}
              </span>
              <span className="search-snippet">
                {snippetParts(h.snippet).map((p, i) => (p.match ? <mark key={i}>{p.text}</mark> : <span key={i}>{p.text}</span>))}
              </span>
            </button>
          </li>
        ))}
      </ol>
      {next ? (
        <button type="button" className="btn btn-small" onClick={() => void load(next)} disabled={loading}>
          More results
        </button>
      ) : null}
    </section>
  );
}
