/** Search across every session (#/search?q=…). */
import { useState } from 'react';
import { navigate } from '../../shell/use-route';
import { SearchResults } from './SearchResults';

/** The view. */
export function SearchView({ q: initial }: { q: string }) {
  const [text, setText] = useState(initial);
  const [q, setQ] = useState(initial);
  const [advanced, setAdvanced] = useState(false);
  return (
    <div className="view view-narrow">
      <div className="view-head">
        <div>
          <h1 className="view-title">Search</h1>
          <p className="view-sub">Prompts, commands, outputs and answers across sessions, as far as the capture level kept them. Type words, a path or a command as it appears; every word must match. A session or command id finds its session.</p>
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
        <input className="input input-search" type="search" aria-label="Search all sessions" value={text} onChange={(e) => setText(e.target.value)} data-testid="search-all" placeholder={advanced ? 'e.g. migrate OR rollback' : 'e.g. npm run build'} />
        <button type="submit" className="btn btn-primary">
          Search
        </button>
        <label className="small search-advanced">
          <input type="checkbox" checked={advanced} onChange={(e) => setAdvanced(e.target.checked)} data-testid="search-advanced" /> Advanced (AND, OR, NOT, NEAR, prefix*)
        </label>
      </form>
      <SearchResults q={q} advanced={advanced} onOpen={(h) => navigate({ name: 'session', id: h.session, event: h.id })} />
    </div>
  );
}
