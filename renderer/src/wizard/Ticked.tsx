/**
 * Installer and doctor messages quote commands in `backticks`: shown here as code, each with a
 * copy button, so every command the user must run can be copied as it is.
 */
import { Fragment } from 'react';
import { CopyButton } from './CopyButton';

/** The text with each backticked span rendered as <code> and a copy button. */
export function Ticked({ text }: { text: string }) {
  const parts = text.split('`');
  // An unbalanced backtick leaves the text as it is.
  if (parts.length % 2 === 0) return <>{text}</>;
  return (
    <>
      {parts.map((p, i) =>
        i % 2 === 1 ? (
          <span key={i} className="wz-command">
            <code>{p}</code>
            <CopyButton text={p} />
          </span>
        ) : (
          <Fragment key={i}>{p}</Fragment>
        ),
      )}
    </>
  );
}
