/**
 * The check for events built by the daemon's own typed emitters (the vendor and launched-agent
 * emitters): their structure comes from typed code, whose output the mapping tests validate
 * against the schemas, so only the values that came from outside are checked here. Those are the
 * strings a vendor payload names (session, run, step, subject): bounded, without control
 * characters where they route, and never empty. The schemas (ajv) are left to events from outside.
 */
import { err, ok, type Result } from '../../../common/result';
import type { AepEvent } from '../../../common/aep/envelope';
import { envelopeBoundsError } from './envelope-bounds';

/** Envelope strings a typed emitter copies from a vendor payload (AEP-0001 §5.1: non-empty when present). */
const FROM_OUTSIDE = ['session', 'run', 'step', 'subject'] as const;
/** The ones of those that route, so carry no control character (`subject` is free text). */
const ROUTING_FROM_OUTSIDE: ReadonlySet<string> = new Set(['session', 'run', 'step']);

/** Checks the outside-supplied parts of an event a typed emitter built; the message names the rule. */
export function validateTypedEvent(event: AepEvent): Result<AepEvent, 'invalid-event'> {
  if (typeof event !== 'object' || event === null) return err('invalid-event', 'AEP-0001 §5: an event must be a JSON object');
  const bounds = envelopeBoundsError(event as unknown as Record<string, unknown>, ROUTING_FROM_OUTSIDE);
  if (bounds !== undefined) return err('invalid-event', bounds);
  for (const key of FROM_OUTSIDE) {
    const value = (event as unknown as Record<string, unknown>)[key];
    if (value !== undefined && (typeof value !== 'string' || value.length === 0))
      return err('invalid-event', `AEP-0001 §5.1: ${key} must be a non-empty string when present`);
  }
  return ok(event);
}
