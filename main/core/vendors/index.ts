/** The vendor table: one adapter per vendor, looked up by id; nothing outside this folder names a vendor's hooks. */
import type { VendorId, VendorProfile } from '../../../common/vendors';
import { VENDORS } from '../../../common/vendors';
import { claudeCode } from './claude-code/hooks';
import { cline } from './cline/hooks';
import { codex } from './codex/hooks';
import { hermes } from './hermes/hooks';
import { qwenCode } from './qwen-code/hooks';
import type { VendorAdapter } from './types';
import { vscode } from './vscode/hooks';

export type * from './types';
export { DEFAULT_CAPTURE_POLICY, INITIAL_MAPPING_STATE } from './types';
export { fallbackType } from './fallback';

/** Every vendor's adapter, keyed by vendor id. */
export const VENDOR_ADAPTERS: Readonly<Record<VendorId, VendorAdapter>> = {
  'claude-code': claudeCode,
  codex,
  'qwen-code': qwenCode,
  vscode,
  hermes,
  cline,
};

/** The adapter for a vendor. */
export const vendorAdapter = (vendor: VendorId): VendorAdapter => VENDOR_ADAPTERS[vendor];

/** Every vendor's profile, in the order of `VENDORS` (served by /api/vendors). */
export const vendorProfiles = (): VendorProfile[] =>
  VENDORS.map((vendor) => VENDOR_ADAPTERS[vendor].profile);
