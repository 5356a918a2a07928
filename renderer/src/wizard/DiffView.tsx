/** One planned file change: its path, what kind of change, and the unified diff, line by line. */
import { useMemo } from 'react';
import type { FileChange } from '../../../common/api';
import { diffLines, diffStat, isLauncherFile } from './wizard-model';

function changeKind(change: FileChange): string {
  if (change.before === null) return 'new file';
  if (change.after === null) return 'removed';
  return change.diff.trim() === '' ? 'unchanged' : 'edited';
}

/** The diff of one file; the companion's own launcher files start collapsed. */
export function DiffView({ change }: { change: FileChange }) {
  const lines = useMemo(() => diffLines(change.diff), [change.diff]);
  const stat = useMemo(() => diffStat(change.diff), [change.diff]);
  const launcher = isLauncherFile(change.path);
  return (
    <details className="wz-file" open={!launcher} data-testid="diff" data-path={change.path}>
      <summary className="wz-file-head">
        <span className="wz-file-path mono">{change.path}</span>
        <span className="wz-file-kind small muted">
          {launcher ? 'the companion’s hook launcher · ' : ''}
          {changeKind(change)}
        </span>
        <span className="wz-file-stat small mono" aria-label={`${stat.added} lines added, ${stat.removed} removed`}>
          <span className="wz-add-count">+{stat.added}</span> <span className="wz-del-count">−{stat.removed}</span>
        </span>
      </summary>
      {lines.length === 0 ? (
        <p className="small muted wz-file-empty">No change: this file already holds exactly these entries.</p>
      ) : (
        <pre className="wz-diff" aria-label={`Diff of ${change.path}`}>
          {lines.map((l, i) =>
            l.kind === 'meta' ? null : (
              <span key={i} className={`wz-line wz-line-${l.kind}`}>
                {l.text || ' '}
                {'\n'}
              </span>
            ),
          )}
        </pre>
      )}
    </details>
  );
}
