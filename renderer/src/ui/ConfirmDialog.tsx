import { useEffect, useId, useRef, type ReactNode } from 'react';

/** A modal confirmation built on <dialog>: focus is trapped and Escape cancels. */
export function ConfirmDialog(props: {
  open: boolean;
  title: string;
  children: ReactNode;
  confirmLabel: string;
  tone?: 'primary' | 'danger';
  busy?: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const titleId = useId();
  useEffect(() => {
    const d = ref.current;
    if (!d) return;
    if (props.open && !d.open) d.showModal();
    if (!props.open && d.open) d.close();
  }, [props.open]);
  return (
    <dialog
      ref={ref}
      className="dialog"
      aria-labelledby={titleId}
      onCancel={(e) => {
        e.preventDefault();
        props.onCancel();
      }}
    >
      <h2 id={titleId} className="dialog-title">{props.title}</h2>
      <div className="dialog-body">{props.children}</div>
      <div className="dialog-actions">
        <button type="button" className="btn" onClick={props.onCancel}>Cancel</button>
        <button type="button" className={`btn ${props.tone === 'danger' ? 'btn-danger' : 'btn-primary'}`} disabled={props.busy} onClick={props.onConfirm} autoFocus>
          {props.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}
