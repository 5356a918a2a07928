/** The mechanical vendor-extension fallback for hooks without a core mapping (AEP-0001 §6). */
import type { VendorId } from '../../../common/vendors';

/** A hook name in snake_case: `SomeFutureHook` → `some_future_hook`, `pre-verify` → `pre_verify`. */
export const snakeCase = (name: string): string =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/_+/g, '_')
    .replace(/^_|_$/g, '') || 'unnamed';

/** `x.{vendor}.session.{snake_case}`: where unknown hooks land, never on a core type. */
export const fallbackType = (vendor: VendorId, moment: string): string =>
  `x.${vendor}.session.${snakeCase(moment)}`;
