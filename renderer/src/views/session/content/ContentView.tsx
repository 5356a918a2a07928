/** The readable form of a timeline row: its pieces, each in the form that suits it. */
import type { ContentPiece } from '../../../model/tool-content';
import { EditDiff } from './EditDiff';
import { Expandable } from './Expandable';
import { JsonTree } from './JsonTree';
import { TerminalText } from './TerminalText';

function FileExcerpt({ path, text, startLine }: { path: string; text: string; startLine: number }) {
  return (
    <figure className="content-block" data-testid="content-file">
      <figcaption className="content-label">
        <span className="mono">{path}</span>
        {startLine > 1 ? <span className="muted"> · from line {startLine}</span> : null}
      </figcaption>
      <Expandable
        text={text}
        render={(shown) => (
          <pre className="file-excerpt" tabIndex={0} aria-label={path}>
            {shown.split('\n').map((line, i) => (
              <span key={i} className="file-line">
                <span className="file-lno" aria-hidden="true">{startLine + i}</span>
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

/** One piece. */
export function Piece({ piece }: { piece: ContentPiece }) {
  switch (piece.kind) {
    case 'terminal':
      return <TerminalText label={piece.label} text={piece.text} tone={piece.tone} />;
    case 'diff':
      return <EditDiff path={piece.path} before={piece.before} after={piece.after} />;
    case 'file':
      return <FileExcerpt path={piece.path} text={piece.text} startLine={piece.startLine} />;
    case 'text':
      return (
        <figure className="content-block" data-testid="content-text">
          <figcaption className="content-label">{piece.label}</figcaption>
          <Expandable text={piece.text} render={(shown) => <p className="content-text">{shown}</p>} />
        </figure>
      );
    case 'json':
      return <JsonTree label={piece.label} value={piece.value} />;
  }
}

/** All pieces of a row. */
export function ContentView({ pieces }: { pieces: readonly ContentPiece[] }) {
  return (
    <div className="content" data-testid="row-content">
      {pieces.map((p, i) => (
        <Piece key={i} piece={p} />
      ))}
    </div>
  );
}
