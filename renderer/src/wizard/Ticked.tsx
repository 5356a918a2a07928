/** Installer and doctor messages quote commands in `backticks`: shown here as code. */
import { Fragment } from 'react';

/** The text with each backticked span rendered as <code>. */
export function Ticked({ text }: { text: string }) {
  const parts = text.split('`');
  // An unbalanced backtick leaves the text as it is.
  if (parts.length % 2 === 0) return <>{text}</>;
  return (
    <>
      {parts.map((p, i) => (i % 2 === 1 ? <code key={i}>{p}</code> : <Fragment key={i}>{p}</Fragment>))}
    </>
  );
}
