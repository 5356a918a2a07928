/** The state of one daemon call as the wizard shows it: never a result the daemon did not send. */
import type { Result } from '../../../common/result';
import type { VendorId } from '../../../common/vendors';

/** Idle, in flight, answered, or failed with the daemon's (or the network's) message. */
export type Load<T> =
  | { readonly state: 'idle' }
  | { readonly state: 'loading' }
  | { readonly state: 'ok'; readonly value: T }
  | { readonly state: 'error'; readonly error: string };

/** The idle state. */
export const IDLE: Load<never> = { state: 'idle' };
/** The in-flight state. */
export const LOADING: Load<never> = { state: 'loading' };

/** Turns an /api result into a load state. */
export function fromResult<T>(r: Result<T>): Load<T> {
  return r.ok ? { state: 'ok', value: r.value } : { state: 'error', error: r.error.message };
}

/** Per-vendor results of one installer call. */
export type PerVendor<T> = Partial<Record<VendorId, Load<T>>>;
