/** An edit or write as a line diff (jsdiff), with its path. */
import { diffText } from '../../../model/tool-content';
import { useMemo } from 'react';
import { Expandable } from './Expandable';

/** One file's change. */
export function EditDiff({ path, before, after }: { path: string; before: string; after: string }) {
  const text = useMemo(() => diffText(before, after), [before, after]);
  const added = text.split('\n').filter((l) => l.startsWith('+')).length;
  const removed = text.split('\n').filter((l) => l.startsWith('-')).length;
  return (
    <figure className="content-block" data-testid="content-diff">
      <figcaption className="content-label">
        <span className="mono">{path}</span> <span className="diff-add-count">+{added}</span> <span className="diff-del-count">−{removed}</span>
      </figcaption>
      <Expandable
        text={text}
        maxLines={60}
        render={(shown) => (
          <pre className="diff" tabIndex={0} aria-label={`Changes to ${path}`}>
            {shown.split('\n').map((line, i) => (
              <span key={i} className={line.startsWith('+') ? 'diff-add' : line.startsWith('-') ? 'diff-del' : 'diff-ctx'}>
                {line}
                {'\n'}
              </span>
            ))}
          </pre>
        )}
      />
    </figure>
  );
}
