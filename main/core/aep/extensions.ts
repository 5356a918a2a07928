/** The producer-side extension-attribute guard (AEP-0001 §5.4): refuse, never silently merge. */
import type { AepEvent } from '../../../common/aep/envelope';
import { err, ok, type Result } from '../../../common/result';
import { isCoreAttribute } from './core-attributes';

const NAME = /^[a-z0-9]{1,20}$/;

/**
 * Adds extension attributes to an event. Refuses a name that collides with a core attribute (on the wire that would
 * be indistinguishable from the attribute itself), an ill-formed name, a non-scalar value, or one already present.
 */
export function withExtensions(
  event: AepEvent,
  extensions: Readonly<Record<string, unknown>>,
): Result<AepEvent, 'invalid-extension'> {
  for (const [name, value] of Object.entries(extensions)) {
    if (isCoreAttribute(name))
      return err(
        'invalid-extension',
        `AEP-0001 §5.4: extension "${name}" collides with a core attribute`,
      );
    if (!NAME.test(name))
      return err(
        'invalid-extension',
        `AEP-0001 §5.4: extension name "${name}" must match [a-z0-9]{1,20}`,
      );
    if (!(typeof value === 'string' || typeof value === 'boolean' || Number.isInteger(value))) {
      return err(
        'invalid-extension',
        `AEP-0001 §5.4: extension "${name}" must be a string, integer or boolean`,
      );
    }
    if (event[name] !== undefined && event[name] !== value) {
      return err(
        'invalid-extension',
        `AEP-0001 §5.4: extension "${name}" is already set to a different value`,
      );
    }
  }
  return ok({ ...event, ...extensions });
}
