import type { ReactNode } from 'react';

/** Tones a badge can take. */
export type BadgeTone = 'ok' | 'warn' | 'bad' | 'pending' | 'neutral' | 'accent' | 'muted';

/** A small status pill. */
export function Badge({ tone, children, title, dot }: { tone: BadgeTone; children: ReactNode; title?: string; dot?: boolean }) {
  return (
    <span className={`badge badge-${tone}`} title={title}>
      {dot ? <span className="badge-dot" aria-hidden="true" /> : null}
      {children}
    </span>
  );
}
