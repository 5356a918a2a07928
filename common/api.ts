/**
 * The console API contract: one typed map of every /api route. Adding a call means adding it
 * here, then the handler in main/core/api, then the client in renderer/src/api.
 */
import type { AuditPage, AuditQuery, Surface } from './audit';
import type { SessionSummary } from './sessions';
import type { Settings } from './settings';
import type { InstructionRecord } from './steering';
import type { VendorId, VendorProfile } from './vendors';

export interface StatusInfo {
  readonly version: string;
  readonly pid: number;
  readonly url: string;
  readonly dataDir: string;
  readonly startedAt: string;
  readonly steeringEnabled: boolean;
  readonly counts: {
    readonly events: number;
    readonly sessions: number;
    readonly connections: number;
    readonly subscribers: number;
  };
  /** Last hook time per vendor (ISO), absent when never seen. */
  readonly lastHook: Partial<Record<VendorId, string>>;
}

export interface SteeringState {
  readonly enabled: boolean;
}

export type InstallScope = 'user' | 'project';

export interface InstallOptions {
  readonly vendor: VendorId;
  readonly scope: InstallScope;
  readonly project?: string;
  readonly instruct: boolean;
  readonly permissions: boolean;
  /** How hooks reach the daemon: native HTTP hooks (Claude Code, Qwen Code) or the command launcher; default per vendor. */
  readonly transport?: 'http' | 'command';
}

export interface VendorDetection {
  readonly vendor: VendorId;
  readonly configPath: string;
  readonly configExists: boolean;
  readonly cliPath: string | null;
  readonly cliVersion: string | null;
  readonly installed: { readonly instruct: boolean; readonly permissions: boolean } | null;
  readonly warnings: readonly string[];
}

export interface FileChange {
  readonly path: string;
  readonly before: string | null;
  readonly after: string | null;
  /** Unified diff of before → after. */
  readonly diff: string;
}

export interface InstallPlan {
  readonly options: InstallOptions;
  readonly changes: readonly FileChange[];
  readonly warnings: readonly string[];
  /** True when applying makes the vendor ask the user to trust the hooks again. */
  readonly retrustRequired: boolean;
}

export interface DoctorFinding {
  readonly vendor: VendorId | null;
  readonly check: string;
  readonly ok: boolean;
  readonly message: string;
  readonly remedy: string | null;
}

/** Route → request body (or query) and response body. */
export interface ApiContract {
  'GET /api/status': { req: void; res: StatusInfo };
  'GET /api/settings': { req: void; res: Settings };
  'PATCH /api/settings': { req: Partial<Settings>; res: Settings };
  'GET /api/steering': { req: void; res: SteeringState };
  'PUT /api/steering': { req: { enabled: boolean; surface?: Surface }; res: SteeringState };
  'GET /api/vendors': { req: void; res: readonly VendorProfile[] };
  'GET /api/sessions': { req: void; res: readonly SessionSummary[] };
  'GET /api/instructions': { req: { session?: string }; res: readonly InstructionRecord[] };
  'GET /api/audit': { req: AuditQuery; res: AuditPage };
  /** The matching audit rows as a file: JSON Lines or CSV (newest first). */
  'GET /api/audit/export': { req: Omit<AuditQuery, 'limit'> & { format: 'jsonl' | 'csv' }; res: string };
  'POST /api/tokens/rotate': { req: { which: 'operator' | 'hook' }; res: { which: 'operator' | 'hook'; token: string } };
  'GET /api/installer/detect': { req: void; res: readonly VendorDetection[] };
  'POST /api/installer/plan': { req: InstallOptions; res: InstallPlan };
  'POST /api/installer/apply': { req: InstallOptions; res: InstallPlan };
  'POST /api/installer/uninstall': { req: { vendor: VendorId; scope: InstallScope; project?: string }; res: InstallPlan };
  'POST /api/installer/doctor': { req: { vendor?: VendorId }; res: readonly DoctorFinding[] };
}

export type ApiRoute = keyof ApiContract;
export type ApiRequest<R extends ApiRoute> = ApiContract[R]['req'];
export type ApiResponse<R extends ApiRoute> = ApiContract[R]['res'];

/** Error body of every refused /api call. */
export interface ApiError {
  readonly error: string;
  readonly detail?: string;
}
