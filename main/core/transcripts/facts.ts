/**
 * What a vendor's transcript says that its hooks do not: the agent's replies as text, a user's
 * interrupt, API errors, the model and token usage, cost and the session's own title. Vendor
 * parsers (main/core/vendors/<v>/transcript.ts) turn lines into these; transcript-events.ts turns
 * them into AEP events of the session the hooks already emit.
 */

/** Token accounting of one model response. */
export interface TranscriptUsage {
  readonly input?: number;
  readonly output?: number;
  readonly cacheRead?: number;
  readonly cacheWrite?: number;
}

/** One fact read from a transcript line. */
export type TranscriptFact =
  /** The assistant's reply text (or a text-less response carrying only usage). */
  | { readonly kind: 'reply'; readonly id: string; readonly text: string; readonly model?: string; readonly usage?: TranscriptUsage }
  /** The user interrupted the turn. */
  | { readonly kind: 'interrupt' }
  /** The model API answered with an error. */
  | { readonly kind: 'api-error'; readonly message: string }
  /** The session's running cost as the vendor computed it. */
  | { readonly kind: 'cost'; readonly currency: string; readonly total: number }
  /** The session's title as the vendor (or its user) named it. */
  | { readonly kind: 'title'; readonly title: string };

/** Per-file parser state a vendor keeps between lines (e.g. the response ids already counted). */
export type ParserState = Record<string, unknown>;

/** One vendor's transcript format and where its transcript files live. */
export interface TranscriptFormat {
  /**
   * The directories that hold this vendor's session transcripts: under the user's home, or under
   * the vendor's config-dir variable when the host passed one (e.g. `CLAUDE_CONFIG_DIR`).
   */
  roots(home: string, vars: Readonly<Record<string, string | undefined>>): readonly string[];
  /** The facts of one complete line; a line that is not JSON or says nothing of interest yields none. */
  parseLine(line: string, state: ParserState): readonly TranscriptFact[];
}

/** Parses a JSON line into an object, or null (a line of anything else is skipped, never fatal). */
export function jsonLine(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

/** An object field of a parsed line, or undefined. */
export const obj = (v: unknown): Record<string, unknown> | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
/** A finite non-negative number, or undefined. */
export const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : undefined);
/** A non-empty string, or undefined. */
export const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v : undefined);

/** The usage of a response from its vendor's counters, or undefined when it names none. */
export function usageFrom(input: unknown, output: unknown, cacheRead?: unknown, cacheWrite?: unknown): TranscriptUsage | undefined {
  const usage = { input: num(input), output: num(output), cacheRead: num(cacheRead), cacheWrite: num(cacheWrite) };
  return Object.values(usage).some((v) => v !== undefined) ? usage : undefined;
}

/** True the first time a response id is seen in this file (a response split over lines is counted once). */
export function firstSight(state: ParserState, id: string, max = 64): boolean {
  const seen = (state['seen'] as string[] | undefined) ?? [];
  if (seen.includes(id)) return false;
  seen.push(id);
  if (seen.length > max) seen.shift();
  state['seen'] = seen;
  return true;
}
