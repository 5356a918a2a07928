/**
 * The console API contract: one typed map of every /api route. Adding a call means adding it
 * here, then the handler in main/core/api, then the client in renderer/src/api.
 */
import type { OpenHandsConnectRequest, OpenHandsState } from './openhands';
import type { AepEvent } from './aep/envelope';
import type { AgentCatalogueEntry, AgentId, LaunchedSessionInfo, LaunchRequest, LaunchResult } from './agents';
import type { AgentInputRecord, MidTurnSteeringState, PendingItem, PendingList } from './agent-inputs';
import type { AuditPage, AuditQuery, Surface } from './audit';
import type { SessionSummary } from './sessions';
import type { SettingKey, Settings } from './settings';
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
  /**
   * Installed HTTP hooks that post to another port than this daemon listens on (empty when every
   * hook reaches it). `POST /api/installer/repair` reinstalls them with this daemon's URL.
   */
  readonly hookPortMismatch: readonly HookPortMismatch[];
  /** Restart-needing settings (`RESTART_SETTINGS`) whose value changed since this daemon started. */
  readonly restartNeeded: readonly SettingKey[];
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

/** One install whose HTTP hooks name another daemon address than the running one. */
export interface HookPortMismatch {
  readonly vendor: VendorId;
  readonly scope: InstallScope;
  readonly project: string | null;
  /** The config file holding the hooks. */
  readonly file: string;
  /** The address the hooks post to (origin only, e.g. http://127.0.0.1:53211). */
  readonly hookUrl: string;
  /** The address this daemon listens on. */
  readonly daemonUrl: string;
}

/** What `POST /api/installer/repair` did: the installs rewritten for this daemon, and those that could not be. */
export interface RepairResult {
  readonly reinstalled: readonly InstallPlan[];
  readonly failed: readonly {
    readonly vendor: VendorId;
    readonly scope: InstallScope;
    readonly project: string | null;
    readonly error: string;
  }[];
}

export interface DoctorFinding {
  readonly vendor: VendorId | null;
  readonly check: string;
  readonly ok: boolean;
  readonly message: string;
  readonly remedy: string | null;
  /** Doctor cannot check this (it is no failure, and no pass either): shown as a note. */
  readonly unchecked?: true;
}

/** The `aep-companion` command-line launcher: where it goes, what it runs, whether it is there and on PATH. */
export interface CommandLineState {
  readonly path: string;
  /** This install's `bin/aep-companion.mjs`, which the launcher runs. */
  readonly entry: string;
  /** `other`: a file of that name that the companion did not write (never touched). */
  readonly installed: 'ours' | 'other' | 'absent';
  /** Ours and running this install's entry with this runtime. */
  readonly current: boolean;
  /** Whether the launcher's folder is on the user's PATH (else the full path must be typed). */
  readonly onPath: boolean;
  /** What a terminal types to run this install's command line without the launcher. */
  readonly direct: string;
  /** The source checkout this install runs from, where `npx aep-companion` works too (null: packaged). */
  readonly checkout: string | null;
}

/** `GET /api/sessions` and `GET /api/sessions/page` query: a keyset page, most recent first. */
export interface SessionsQuery {
  /** Rows per page (default 200, at most 1,000). */
  readonly limit?: number;
  /** The `next` of the previous page (opaque). */
  readonly cursor?: string;
}

/** One page of sessions, most recent first. */
export interface SessionsPage {
  readonly sessions: readonly SessionSummary[];
  /** Pass as `cursor` for the following (older) page; null on the last page. */
  readonly next: string | null;
  /** The page size that was applied. */
  readonly limit: number;
}

/**
 * `GET /api/search` query. `q` is text as typed: every word and "quoted phrase" must occur
 * (hyphens, paths and operators are searched as text, `word*` as a prefix); a session id (or its
 * first characters) or an event or command id finds its session. `mode=advanced` reads `q` as an
 * FTS5 expression (AND/OR/NOT, NEAR, column filters). A query that cannot be searched answers 400
 * `bad-query` with a plain sentence in `detail`.
 */
export interface SearchQuery {
  readonly q: string;
  /** `advanced`: `q` is FTS5 query syntax. Default `text`. */
  readonly mode?: 'text' | 'advanced';
  /** Restrict to one session id (any source). */
  readonly session?: string;
  /** Hits per page (default 50, at most 200). */
  readonly limit?: number;
  /** The `next` of the previous page (opaque). */
  readonly cursor?: string;
}

/** One stored event that matched, newest first. */
export interface SearchHit {
  readonly session: string;
  /** The event's id. */
  readonly id: string;
  /** The event's type, e.g. `tool.requested`. */
  readonly type: string;
  /** The event's time (RFC 3339, as stored). */
  readonly time: string;
  /** Matching text around the hit; matched terms are wrapped in `[` and `]`, cuts marked `…`. */
  readonly snippet: string;
}

export interface SearchPage {
  readonly hits: readonly SearchHit[];
  /** Pass as `cursor` for the following (older) hits; null when there are no more. */
  readonly next: string | null;
}

/** `GET /api/sessions/history`: one session's held events after a position, in session order. */
export interface HistoryQuery {
  readonly session: string;
  /** Resume after this position (both or neither); absent: from the start of retained history. */
  readonly afterEpoch?: number;
  readonly afterSeq?: number;
  /** Events per page (default and largest: 10,000); a page may run a little over to finish a position. */
  readonly limit?: number;
  /**
   * Instead of a page from the start: the session's last `tail` events (1 to 10,000, whole
   * positions, so a little more at most). Not with `afterEpoch`/`afterSeq` or `limit`.
   */
  readonly tail?: number;
}

export interface HistoryPage {
  readonly session: string;
  /** Stored events as admitted (what the capture level kept), in (epoch, seq) order. */
  readonly events: readonly AepEvent[];
  /** Pass as `afterEpoch`/`afterSeq` for the following page; null when this page reached the end. */
  readonly next: { readonly epoch: number; readonly seq: number } | null;
  /** Set when the asked position predates retained history: the earliest position still held. */
  readonly exhausted?: { readonly epoch: number; readonly seq: number };
  /** Tail pages only: true when the session holds events before this page. */
  readonly earlier?: boolean;
}

/** Route → request body (or query) and response body. */
export interface ApiContract {
  'GET /api/status': { req: void; res: StatusInfo };
  'GET /api/settings': { req: void; res: Settings };
  'PATCH /api/settings': { req: Partial<Settings>; res: Settings };
  'GET /api/steering': { req: void; res: SteeringState };
  'PUT /api/steering': { req: { enabled: boolean; surface?: Surface }; res: SteeringState };
  'GET /api/vendors': { req: void; res: readonly VendorProfile[] };
  /** The most recent sessions (the first page: `limit` default 200, at most 1,000), as a bare array. */
  'GET /api/sessions': { req: void | SessionsQuery; res: readonly SessionSummary[] };
  /** Keyset pages of sessions, most recent first, with the `next` cursor. */
  'GET /api/sessions/page': { req: SessionsQuery; res: SessionsPage };
  /** Full-text search over stored events (what the capture level kept). */
  'GET /api/search': { req: SearchQuery; res: SearchPage };
  /** A session's stored history in large pages (what the WS replay sends, in one response). */
  'GET /api/sessions/history': { req: HistoryQuery; res: HistoryPage };
  'GET /api/instructions': { req: { session?: string }; res: readonly InstructionRecord[] };
  'GET /api/audit': { req: AuditQuery; res: AuditPage };
  /** The matching audit rows as a file: JSON Lines or CSV (newest first). */
  'GET /api/audit/export': { req: Omit<AuditQuery, 'limit'> & { format: 'jsonl' | 'csv' }; res: string };
  'POST /api/tokens/rotate': { req: { which: 'operator' | 'hook' }; res: { which: 'operator' | 'hook'; token: string } };
  /** The `aep-companion` launcher on the user's PATH (main/core/installer/command-line.ts). */
  'GET /api/installer/command-line': { req: void; res: CommandLineState };
  'POST /api/installer/command-line': { req: void; res: CommandLineState };
  'DELETE /api/installer/command-line': { req: void; res: CommandLineState };
  /** Sets the browser console's HttpOnly cookie (standing for the operator token on this daemon's origin). */
  'POST /api/auth/cookie': { req: void; res: { signedIn: true } };
  'GET /api/installer/detect': { req: void; res: readonly VendorDetection[] };
  'POST /api/installer/plan': { req: InstallOptions; res: InstallPlan };
  'POST /api/installer/apply': { req: InstallOptions; res: InstallPlan };
  'POST /api/installer/uninstall': { req: { vendor: VendorId; scope: InstallScope; project?: string }; res: InstallPlan };
  'POST /api/installer/doctor': { req: { vendor?: VendorId }; res: readonly DoctorFinding[] };
  /** Reinstalls every install whose HTTP hooks name another port (see `StatusInfo.hookPortMismatch`). */
  'POST /api/installer/repair': { req: void; res: RepairResult };
  /** The launchable agents: installed status, the command that would run, how to get a missing one. */
  'GET /api/agents': { req: void; res: readonly AgentCatalogueEntry[] };
  /** Starts an agent in `cwd` (400 when it is not a directory); returns once the session exists and the first prompt was sent. */
  'POST /api/launch': { req: LaunchRequest; res: LaunchResult };
  /** Launched sessions (live and from earlier runs), most recent first. */
  'GET /api/launched': { req: void; res: readonly LaunchedSessionInfo[] };
  /** Ends a launched session: cancel, close the agent, terminal events; audited. */
  'POST /api/launched/end': { req: { session: string }; res: LaunchedSessionInfo };
  /** Resumes an ended session whose agent advertised `loadSession` (state `resumable`). */
  'POST /api/launched/resume': { req: { session: string }; res: LaunchResult };
  /** Fetches an agent's bridge package now (progress in `GET /api/agents` → `bridge`). */
  'POST /api/agents/fetch': { req: { agent: AgentId }; res: AgentCatalogueEntry };
  /** The mid-turn steering toggle (hot, audited; in force only under the kill switch). */
  'GET /api/mid-turn-steering': { req: void; res: MidTurnSteeringState };
  'PUT /api/mid-turn-steering': { req: { enabled: boolean; surface?: Surface }; res: MidTurnSteeringState };
  /** What a session still holds (launched inputs and hook-path instructions), next first, with its badge. */
  'GET /api/pending': { req: { session: string }; res: PendingList };
  /** Replaces the text of a queued message or instruction (409 once it was sent). */
  'POST /api/pending/edit': { req: { session: string; commandId: string; text: string }; res: PendingItem };
  /** Reorders a session's queued messages: `order` names each queued command id exactly once. */
  'POST /api/pending/reorder': { req: { session: string; order: readonly string[] }; res: PendingList };
  /** Withdraws a queued message or instruction before it is sent (audited; `dropped { reason: "withdrawn" }` on the stream). */
  'POST /api/pending/withdraw': { req: { session: string; commandId: string }; res: PendingItem };
  /** Lets a queue held by Stop flow again (the next message is sent when the agent is idle). */
  'POST /api/pending/resume': { req: { session: string }; res: PendingList };
  /** A launched session's messages with their lifecycle and outcome, newest first. */
  'GET /api/inputs': { req: { session: string; limit?: number }; res: readonly AgentInputRecord[] };
  /** The OpenHands agent-server connection (never its key). */
  'GET /api/openhands': { req: void; res: OpenHandsState };
  /** Connects to an OpenHands agent server: the key is written to a 0600 file and never echoed. */
  'POST /api/openhands/connect': { req: OpenHandsConnectRequest; res: OpenHandsState };
  'POST /api/openhands/disconnect': { req: void; res: OpenHandsState };
}

export type ApiRoute = keyof ApiContract;
export type ApiRequest<R extends ApiRoute> = ApiContract[R]['req'];
export type ApiResponse<R extends ApiRoute> = ApiContract[R]['res'];

/** Error body of every refused /api call. */
export interface ApiError {
  readonly error: string;
  readonly detail?: string;
}
