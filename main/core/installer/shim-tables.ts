/**
 * The installed hook shim's per-vendor tables, generated from the vendor adapters (one place per
 * vendor fact): which moments the daemon may hold while the operator answers (the shim waits
 * long only there, and only with the permission opt-in), and what the shim prints when the
 * daemon has nothing to say or cannot be reached.
 */
import { VENDORS, type VendorId } from '../../../common/vendors';
import { VENDOR_ADAPTERS } from '../agents/vendors';

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
