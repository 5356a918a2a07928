/** Persisted settings: key → JSON value in the settings table. */
import type { Capture } from './aep/envelope';
import type { AgentId } from './agents';

export type Theme = 'system' | 'light' | 'dark';

export interface Settings {
  /** The steering kill switch. Off by default. */
  readonly 'features.steering': boolean;
  /**
   * Mid-turn steering of launched sessions (input delivered into a generating turn). Off by
   * default, hot, audited; only in force while `features.steering` is on. The host may force it
   * with an environment override (passed in; the core never reads the environment).
   */
  readonly 'features.midTurnSteering': boolean;
  /**
   * Read the transcript files observed sessions' hooks point to (only inside the vendors' own
   * session directories), for the agent's replies and what hooks miss. On by default.
   */
  readonly 'features.transcripts': boolean;
  /** Tokenless watch-only observation (local development); control stays refused. */
  readonly 'security.tokenlessWatch': boolean;
  /**
   * Capture ceiling applied by the vendor adapters. Default `redacted`: prompts, commands and
   * outputs are kept, with secrets, tokens and home paths scrubbed, so the console shows the
   * agent's work out of the box (the setup wizard explains the levels and offers this one).
   */
  readonly 'capture.ceiling': Capture;
  /** Ceiling override for attention.* events. */
  readonly 'capture.attentionCeiling': Capture;
  /** Events retained per session (advertised as replay.buffer). */
  readonly 'retention.maxEventsPerSession': number;
  /** Events older than this many days are deleted (by their `time`), whatever the per-session limit. */
  readonly 'retention.eventDays': number;
  /** Sessions not seen for this many days are forgotten, with their events. */
  readonly 'retention.sessionDays': number;
  /** Ended sessions are forgotten, with their events, this many days after they were last seen. */
  readonly 'retention.endedSessionDays': number;
  /** Settled instructions (`steering`) and recorded control acks are kept this many days. */
  readonly 'retention.steeringDays': number;
  /** Audit rows are kept this many days (the longest: it is the record of what was done). */
  readonly 'retention.auditDays': number;
  /** Vendors without a session-end moment drop queued instructions after this idle time. */
  readonly 'steering.idleExpiryMs': number;
  /** How long a permission hook is held waiting for an operator answer. */
  readonly 'permissions.holdMs': number;
  /** Port for the next start (a change needs a restart). */
  readonly 'server.port': number;
  readonly 'ui.theme': Theme;
  readonly 'ui.notifications': boolean;
  readonly 'app.startAtLogin': boolean;
  /** ISO time the setup wizard finished, or null when it never ran to its end. */
  readonly 'setup.completedAt': string | null;
  /** ISO time the user skipped the setup wizard (it stops opening by itself), or null. */
  readonly 'setup.skippedAt': string | null;
  /** Launch command overrides per agent (argv, first the executable), or null for the catalogue's default. */
  readonly 'agents.claude-code.command': readonly string[] | null;
  readonly 'agents.codex.command': readonly string[] | null;
  readonly 'agents.qwen-code.command': readonly string[] | null;
  readonly 'agents.gemini-cli.command': readonly string[] | null;
  /** The agent the New session dialog started last (preselected next time), or null. */
  readonly 'launch.lastAgent': AgentId | null;
  /** The New session dialog's working directories, most recent first (at most LAUNCH_RECENT_FOLDERS). */
  readonly 'launch.recentFolders': readonly string[];
}

/** How many recent folders the New session dialog keeps. */
export const LAUNCH_RECENT_FOLDERS = 8;

export type SettingKey = keyof Settings;

/** Settings read only when the daemon starts: a change to one needs a restart to take effect. */
export const RESTART_SETTINGS: readonly SettingKey[] = ['server.port'];

export const DEFAULT_SETTINGS: Settings = {
  'features.steering': false,
  'features.midTurnSteering': false,
  'features.transcripts': true,
  'security.tokenlessWatch': false,
  'capture.ceiling': 'redacted',
  'capture.attentionCeiling': 'redacted',
  'retention.maxEventsPerSession': 10_000,
  'retention.eventDays': 30,
  'retention.sessionDays': 30,
  'retention.endedSessionDays': 14,
  'retention.steeringDays': 90,
  'retention.auditDays': 365,
  'steering.idleExpiryMs': 30 * 60_000,
  'permissions.holdMs': 50_000,
  'server.port': 8787,
  'ui.theme': 'system',
  'ui.notifications': true,
  'app.startAtLogin': false,
  'setup.completedAt': null,
  'setup.skippedAt': null,
  'agents.claude-code.command': null,
  'agents.codex.command': null,
  'agents.qwen-code.command': null,
  'agents.gemini-cli.command': null,
  'launch.lastAgent': null,
  'launch.recentFolders': [],
};
