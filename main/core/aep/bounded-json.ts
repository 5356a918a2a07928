/**
 * Bounded JSON parsing for every binding (HTTP bodies, NDJSON lines, WS frames, hook payloads):
 * nesting depth is checked on the text before `JSON.parse` builds anything, so a value that would
 * make a recursive walk (`JSON.stringify`, schema validation, filter parsing, redaction) overflow
 * the stack never exists in memory. Sizes are bounded by the bindings before parsing (body and
 * frame limits); envelope strings by `envelope-bounds.ts` after it.
 */
import { err, ok, type Result } from '../../../common/result';

/** Deepest nesting of arrays and objects taken anywhere (events, frames, hook payloads, filters). */
export const MAX_JSON_DEPTH = 128;

/** Bounds of one parse. */
export interface JsonBounds {
  /** Deepest nesting of `[` / `{` allowed (default `MAX_JSON_DEPTH`). */
  readonly maxDepth?: number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * The offset at which `text` nests deeper than `maxDepth`, or -1. Linear: strings are skipped with
 * `indexOf`, so long string values cost one native scan. Malformed text is left to `JSON.parse`.
 */
export function depthExceededAt(text: string, maxDepth: number = MAX_JSON_DEPTH): number {
  if (opensAtMost(text, maxDepth)) return -1;
  let depth = 0;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Find the closing quote: one not preceded by an odd run of backslashes.
      let j = i;
      for (;;) {
        j = text.indexOf('"', j + 1);
        if (j === -1) return -1; // unterminated string: JSON.parse reports it
        let k = j - 1;
        while (text.charCodeAt(k) === BACKSLASH) k--;
        if ((j - 1 - k) % 2 === 0) break;
      }
      i = j;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > maxDepth) return i;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return -1;
}

/**
 * True when `text` holds at most `max` `{` and `[` in all (inside strings or not): it cannot nest
 * deeper, so the scan is skipped. A few native searches for the small bodies most callers parse.
 */
function opensAtMost(text: string, max: number): boolean {
  let opens = 0;
  for (const open of ['{', '[']) {
    for (let i = text.indexOf(open); i !== -1; i = text.indexOf(open, i + 1)) if (++opens > max) return false;
  }
  return true;
}

/** The refusal text for a value nested too deep (shared so every binding says the same). */
export const depthMessage = (at: number, maxDepth: number): string =>
  `JSON nests deeper than ${maxDepth} levels (at offset ${at}); this relay takes at most ${maxDepth}`;

/**
 * Parses JSON text with bounded nesting. `invalid-json` carries a one-line message: malformed JSON
 * (the parser's own words) or the depth bound that was hit.
 */
export function parseBoundedJson(
  text: string,
  bounds: JsonBounds = {},
): Result<unknown, 'invalid-json'> {
  const maxDepth = bounds.maxDepth ?? MAX_JSON_DEPTH;
  const at = depthExceededAt(text, maxDepth);
  if (at !== -1) return err('invalid-json', depthMessage(at, maxDepth));
  try {
    return ok(JSON.parse(text) as unknown);
  } catch (e) {
    return err('invalid-json', `malformed JSON: ${(e as Error).message}`);
  }
}

/** Depth of an already-built value, stopping once it passes `maxDepth` (for in-process callers). */
export function exceedsDepth(value: unknown, maxDepth: number = MAX_JSON_DEPTH): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop()!;
    if (typeof v !== 'object' || v === null) continue;
    if (d > maxDepth) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children)
      if (typeof child === 'object' && child !== null) stack.push([child, d + 1]);
  }
  return false;
}
