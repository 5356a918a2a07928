/**
 * The relay's bounds on envelope strings (AEP-0001 §12: correlation identifiers are untrusted
 * input). Routing strings are written into framing (the SSE `id:` line), keys of in-memory maps and
 * index columns, so each has a length bound and may carry no control character (a CR/LF in
 * `session` would forge SSE lines). Checked before schema validation, so an oversized string never
 * reaches a pattern or a map.
 */
import { CORE_ATTRIBUTES } from './core-attributes';

/** Longest `id`, `session`, `run`, `step`, `cause` or `agent` taken (characters). */
export const MAX_ROUTING_LENGTH = 512;
/** Longest `source` (a URI reference) or `subject` taken. */
export const MAX_SOURCE_LENGTH = 2_048;
/** Longest string value of an extension attribute taken. */
export const MAX_EXTENSION_LENGTH = 4_096;

/** The envelope strings bounded here, with their length bound; all but `subject` (free text) route. */
const ROUTING: Readonly<Record<string, number>> = {
  id: MAX_ROUTING_LENGTH,
  source: MAX_SOURCE_LENGTH,
  agent: MAX_ROUTING_LENGTH,
  session: MAX_ROUTING_LENGTH,
  run: MAX_ROUTING_LENGTH,
  step: MAX_ROUTING_LENGTH,
  subject: MAX_SOURCE_LENGTH,
  cause: MAX_ROUTING_LENGTH,
  type: 256,
  time: 64,
  traceparent: 128,
};

/** C0 controls and DEL: never legal in a routing string. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f]/;

/** True when `text` holds a control character (C0 or DEL). */
export const hasControlCharacter = (text: string): boolean => CONTROL.test(text);

/**
 * A one-line refusal when a routing string of `value` breaks a bound, else undefined. Every string
 * is bounded in length; `controlled` names the routing strings searched for control characters
 * (default: all but `subject`). A typed emitter names only the ones it copied from outside: the
 * others are its own text (an id, a time, a type) or built from those (a source from the session).
 */
export function envelopeBoundsError(
  value: Readonly<Record<string, unknown>>,
  controlled?: ReadonlySet<string>,
): string | undefined {
  for (const key in ROUTING) {
    const v = value[key];
    if (typeof v !== 'string') continue;
    const row = CORE_ATTRIBUTES[key];
    if (v.length > ROUTING[key])
      return `AEP-0001 §5.1 #${row} (relay bound): ${key} is ${v.length} characters long; this relay takes at most ${ROUTING[key]}`;
    if ((controlled === undefined ? key !== 'subject' : controlled.has(key)) && CONTROL.test(v))
      return `AEP-0001 §5.1 #${row} (relay bound): ${key} contains a control character (U+0000-U+001F or U+007F), which this relay refuses in routing attributes`;
  }
  for (const key in value) {
    if (Object.hasOwn(ROUTING, key) || Object.hasOwn(CORE_ATTRIBUTES, key)) continue;
    const v = value[key];
    if (typeof v === 'string' && v.length > MAX_EXTENSION_LENGTH)
      return `AEP-0001 §5.4 (relay bound): extension attribute "${key.slice(0, 40)}" is ${v.length} characters long; this relay takes at most ${MAX_EXTENSION_LENGTH}`;
  }
  return undefined;
}
