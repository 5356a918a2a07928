/** Long text cut to its first lines, with "show all" (and back). */
import { useState, type ReactNode } from 'react';
import { truncateText } from '../../../model/tool-content';

/** Renders `render(text)` for the shown part, and the toggle when the text is long. */
export function Expandable({ text, render, maxLines = 40 }: { text: string; render: (shown: string) => ReactNode; maxLines?: number }) {
  const [all, setAll] = useState(false);
  const t = truncateText(text, maxLines);
  return (
    <>
      {render(all || !t.truncated ? text : t.shown)}
      {t.truncated ? (
        <button type="button" className="btn btn-small btn-ghost show-all" onClick={() => setAll(!all)} data-testid="show-all" aria-expanded={all}>
          {all ? 'Show less' : `Show all (${t.lines.toLocaleString('en-US')} lines, ${text.length.toLocaleString('en-US')} characters)`}
        </button>
      ) : null}
    </>
  );
}
