/** The agent vendors the companion adapts. Per-vendor behaviour lives in main/core/vendors/. */

export const VENDORS = ['claude-code', 'codex', 'qwen-code', 'vscode', 'hermes', 'cline'] as const;
export type VendorId = (typeof VENDORS)[number];

export const VENDOR_NAMES: Readonly<Record<VendorId, string>> = {
  'claude-code': 'Claude Code',
  codex: 'Codex CLI',
  'qwen-code': 'Qwen Code',
  vscode: 'VS Code agent',
  hermes: 'Hermes',
  cline: 'Cline',
};

/**
 * The session id of the installer doctor's synthetic hooks: the hook route answers them like any
 * hook, but they are no agent session, so nothing of them is recorded or listed.
 */
export const DOCTOR_SESSION = 'aep-companion-doctor';

/**
 * Whether a hook payload is doctor's synthetic hook (any vendor's payload shape): it proves the
 * route answers and never counts as an agent's activity (the status bar's last hook).
 */
export function isSyntheticHook(payload: unknown): boolean {
  if (payload === null || typeof payload !== 'object') return false;
  const p = payload as Record<string, unknown>;
  return p.session_id === DOCTOR_SESSION || p.taskId === DOCTOR_SESSION;
}


/** Narrowing check for untrusted input (URL segments, CLI arguments). */
export const isVendorId = (value: unknown): value is VendorId =>
  typeof value === 'string' && (VENDORS as readonly string[]).includes(value);

/** The steering verb of a vendor (design record: one shape, vendor-scoped). */
export const instructType = (vendor: VendorId): string => `x.${vendor}.control.instruct`;

/** What the console shows about steering for one vendor, served by /api/vendors. */
export interface VendorProfile {
  readonly id: VendorId;
  readonly name: string;
  /** Hook moments whose reply carries steering (those the runtime is known to read). */
  readonly deliveryMoments: readonly string[];
  /** Maximum characters of context per reply, or null when the vendor documents none. */
  readonly contextCap: number | null;
  /** The hook moment that ends a session, or null when the vendor has none (its queue lives for the daemon's lifetime). */
  readonly sessionEndMoment: string | null;
  /** Whether the vendor has an answerable permission moment. */
  readonly permissionMoments: readonly string[];
}
