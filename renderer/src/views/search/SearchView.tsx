/** Search across every session (#/search?q=…). */
import { useState } from 'react';
import { navigate } from '../../shell/use-route';
import { SearchResults } from './SearchResults';

/** The view. */
export function SearchView({ q: initial }: { q: string }) {
  const [text, setText] = useState(initial);
  const [q, setQ] = useState(initial);
  return (
    <div className="view view-narrow">
      <div className="view-head">
        <div>
          <h1 className="view-title">Search</h1>
          <p className="view-sub">Prompts, commands, outputs and answers across sessions, as far as the capture level kept them. Words, "phrases", prefix*, AND / OR / NOT.</p>
        </div>
      </div>
      <form
        className="search-form"
        role="search"
        onSubmit={(e) => {
          e.preventDefault();
          setQ(text.trim());
          navigate({ name: 'search', q: text.trim() });
        }}
      >
        <input className="input input-search" type="search" aria-label="Search all sessions" value={text} onChange={(e) => setText(e.target.value)} data-testid="search-all" placeholder="e.g. migrate OR rollback" />
        <button type="submit" className="btn btn-primary">
          Search
        </button>
      </form>
      <SearchResults q={q} onOpen={(h) => navigate({ name: 'session', id: h.session, event: h.id })} />
    </div>
  );
}
