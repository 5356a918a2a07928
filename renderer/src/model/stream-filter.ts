/**
 * The "all sessions" stream's filters and colours, pure: event kinds by type family, vendor and
 * project from the session list, and one stable colour per session.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { SessionSummary } from '../../../common/sessions';

/** Event kinds the stream filters by. */
export const STREAM_KINDS = ['session', 'run', 'tool', 'attention', 'control', 'message', 'other'] as const;
export type StreamKind = (typeof STREAM_KINDS)[number];

/** The kind of an event type. */
export function streamKind(type: string): StreamKind {
  const family = type.split('.')[0];
  if (family === 'x') return type.includes('.control.') || type.includes('.input.') || type.includes('.instruction.') ? 'control' : 'other';
  return (STREAM_KINDS as readonly string[]).includes(family) ? (family as StreamKind) : 'other';
}

/** The filters in force ('' = any). */
export interface StreamFilter {
  readonly vendor: string;
  readonly project: string;
  readonly kinds: ReadonlySet<StreamKind>;
}

/** Who an event's session belongs to: its vendor (or agent) and project (cwd). */
export function sessionKeys(summary: SessionSummary | undefined, event: AepEvent): { vendor: string; project: string } {
  return { vendor: summary?.vendor ?? summary?.agent ?? event.agent, project: summary?.cwd ?? '' };
}

/** Applies the filters. */
export function filterStream(events: readonly AepEvent[], bySession: ReadonlyMap<string, SessionSummary>, f: StreamFilter): AepEvent[] {
  return events.filter((e) => {
    if (!f.kinds.has(streamKind(e.type))) return false;
    const keys = sessionKeys(bySession.get(e.session ?? ''), e);
    return (!f.vendor || keys.vendor === f.vendor) && (!f.project || keys.project === f.project);
  });
}

/** Eight swatch colours that stay apart from each other in both themes. */
export const SESSION_COLOURS = ['#3b82f6', '#e11d48', '#16a34a', '#d97706', '#9333ea', '#0891b2', '#db2777', '#65a30d'] as const;

/** A session's colour, stable for its id. */
export function sessionColour(session: string): string {
  let h = 0;
  for (let i = 0; i < session.length; i++) h = (h * 31 + session.charCodeAt(i)) >>> 0;
  return SESSION_COLOURS[h % SESSION_COLOURS.length];
}

/** Search snippets mark matches with [ and ]: split into plain and matched parts. */
export function snippetParts(snippet: string): { text: string; match: boolean }[] {
  const parts: { text: string; match: boolean }[] = [];
  const re = /\[([^\]]*)\]/g;
  let last = 0;
  for (let m = re.exec(snippet); m; m = re.exec(snippet)) {
    if (m.index > last) parts.push({ text: snippet.slice(last, m.index), match: false });
    parts.push({ text: m[1], match: true });
    last = m.index + m[0].length;
  }
  if (last < snippet.length) parts.push({ text: snippet.slice(last), match: false });
  return parts;
}
