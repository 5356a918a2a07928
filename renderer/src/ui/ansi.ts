/**
 * ANSI terminal text to HTML through ansi_up, with classes only: the console's CSP allows no
 * inline styles, so bold, faint and the like become classes and 24-bit colours are dropped (the
 * text itself always stays). ansi_up escapes the text.
 */
import { AnsiUp } from 'ansi_up';

const ansi = new AnsiUp();
ansi.use_classes = true;
ansi.escape_html = true;
// Markers, turned into classes below: an inline style attribute would break the CSP.
ansi.boldStyle = 'ansi-bold';
ansi.faintStyle = 'ansi-faint';
ansi.italicStyle = 'ansi-italic';
ansi.underlineStyle = 'ansi-underline';

/** ANSI text → HTML with classes only (ansi_up has escaped the text itself). */
export function ansiToHtml(text: string): string {
  const html = ansi.ansi_to_html(text);
  return html.replace(/<span style="([^"]*)"(?: class="([^"]*)")?>/g, (_m, style: string, classes: string | undefined) => {
    const marks = style.split(';').filter((s) => s.startsWith('ansi-'));
    const all = [...marks, ...(classes ? classes.split(' ') : [])];
    return all.length ? `<span class="${all.join(' ')}">` : '<span>';
  });
}
