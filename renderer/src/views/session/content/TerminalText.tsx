/**
 * Terminal output as a terminal shows it: line breaks kept, ANSI colours rendered through
 * ansi_up with classes (the console's CSP allows no inline styles, so bold, faint and the
 * 24-bit colours become classes or are dropped; the text itself always stays).
 */
import { ansiToHtml } from '../../../ui/ansi';
import { Expandable } from './Expandable';

/** One block of terminal text. */
export function TerminalText({ label, text, tone }: { label: string; text: string; tone?: 'error' }) {
  return (
    <figure className={`content-block${tone === 'error' ? ' content-error' : ''}`} data-testid="content-terminal">
      <figcaption className="content-label">{label}</figcaption>
      <Expandable text={text} render={(shown) => <pre className="terminal" tabIndex={0} aria-label={label} dangerouslySetInnerHTML={{ __html: ansiToHtml(shown) }} />} />
    </figure>
  );
}
