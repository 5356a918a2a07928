/** Sessions as the console sees them (the sessions table, served by /api/sessions). */
import type { VendorId } from './vendors';

export type SessionState = 'active' | 'idle' | 'ended';

export interface SessionSummary {
  /** The emitter's source URI; sessions are keyed by (source, session). */
  readonly source: string;
  readonly session: string;
  readonly agent: string;
  /** Null for sessions from third-party AEP emitters. */
  readonly vendor: VendorId | null;
  readonly cwd: string | null;
  readonly state: SessionState;
  readonly firstSeen: string;
  readonly lastSeen: string;
  /** Name of the last vendor hook moment seen, e.g. 'PreToolUse'. */
  readonly lastHook: string | null;
  /** The session's hooks carry the steering opt-in (AEP_INSTRUCT=1). */
  readonly instructOptIn: boolean;
  /** The session's hooks carry the permission-loop opt-in. */
  readonly permissionsOptIn: boolean;
  /** Open attention requests (permission prompts, forms) awaiting an answer. */
  readonly pendingAttention: number;
  readonly eventCount: number;
  /** `launched`: the companion started it (main/core/launched, steerable from the console); `observed`: seen through hooks or an emitter. */
  readonly origin?: SessionOrigin;
}

/** Who started a session. */
export type SessionOrigin = 'launched' | 'observed';
