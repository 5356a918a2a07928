import type { ReactNode } from 'react';

/** A calm, guiding empty state. */
export function EmptyState({ title, children, action, icon }: { title: string; children?: ReactNode; action?: ReactNode; icon?: ReactNode }) {
  return (
    <div className="empty" role="status">
      {icon ? <div className="empty-icon" aria-hidden="true">{icon}</div> : null}
      <h2 className="empty-title">{title}</h2>
      {children ? <div className="empty-body">{children}</div> : null}
      {action ? <div className="empty-action">{action}</div> : null}
    </div>
  );
}
