/**
 * The installed hook shim's per-vendor tables, generated from the vendor adapters (one place per
 * vendor fact): which moments the daemon may hold while the operator answers (the shim waits
 * long only there, and only with the permission opt-in, up to `heldDeadlineTable`), and what the shim prints when the
 * daemon has nothing to say or cannot be reached.
 */
import { VENDORS, type VendorId } from '../../../common/vendors';
import { VENDOR_ADAPTERS } from '../vendors';
import { VENDOR_INSTALLERS } from '../vendors/installers';

/** How far inside the vendor's own hook timeout the shim gives up on a held moment. */
export const HELD_MARGIN_MS = 2_000;

/** Held moments per vendor, from each adapter's `heldMoments`. */
export function heldMomentsTable(): Record<VendorId, readonly string[]> {
  const table = {} as Record<VendorId, readonly string[]>;
  for (const v of VENDORS) table[v] = [...VENDOR_ADAPTERS[v].heldMoments];
  return table;
}

/** The empty reply a command hook prints per vendor, from each adapter's `emptyCommandOutput`. */
export function emptyOutputTable(): Record<VendorId, string> {
  const table = {} as Record<VendorId, string>;
  for (const v of VENDORS) table[v] = VENDOR_ADAPTERS[v].emptyCommandOutput;
  return table;
}

/**
 * The shim's deadline per vendor on a held moment (permission opt-in on): the vendor's own hook
 * timeout there (its installer's `heldTimeoutS`) less HELD_MARGIN_MS, so the shim prints the empty
 * reply before the vendor kills it, and never gives up on a hold the vendor still waits for. A
 * vendor without a longer held timeout is absent: the shim keeps its ordinary deadline there.
 */
export function heldDeadlineTable(): Partial<Record<VendorId, number>> {
  const table: Partial<Record<VendorId, number>> = {};
  for (const v of VENDORS) {
    const seconds = VENDOR_INSTALLERS[v].heldTimeoutS;
    if (seconds !== undefined) table[v] = seconds * 1000 - HELD_MARGIN_MS;
  }
  return table;
}
