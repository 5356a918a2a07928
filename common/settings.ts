/** Persisted settings: key → JSON value in the settings table. */
import type { Capture } from './aep/envelope';

export type Theme = 'system' | 'light' | 'dark';

export interface Settings {
  /** The steering kill switch. Off by default. */
  readonly 'features.steering': boolean;
  /** Tokenless watch-only observation (local development); control stays refused. */
  readonly 'security.tokenlessWatch': boolean;
  /** Capture ceiling applied by the vendor adapters. */
  readonly 'capture.ceiling': Capture;
  /** Ceiling override for attention.* events. */
  readonly 'capture.attentionCeiling': Capture;
  /** Events retained per session (advertised as replay.buffer). */
  readonly 'retention.maxEventsPerSession': number;
  /** Vendors without a session-end moment drop queued instructions after this idle time. */
  readonly 'steering.idleExpiryMs': number;
  /** How long a permission hook is held waiting for an operator answer. */
  readonly 'permissions.holdMs': number;
  /** Port for the next start (a change needs a restart). */
  readonly 'server.port': number;
  readonly 'ui.theme': Theme;
  readonly 'ui.notifications': boolean;
  readonly 'app.startAtLogin': boolean;
  /** ISO time the setup wizard finished, or null when it never ran. */
  readonly 'setup.completedAt': string | null;
}

export type SettingKey = keyof Settings;

export const DEFAULT_SETTINGS: Settings = {
  'features.steering': false,
  'security.tokenlessWatch': false,
  'capture.ceiling': 'metadata',
  'capture.attentionCeiling': 'redacted',
  'retention.maxEventsPerSession': 10_000,
  'steering.idleExpiryMs': 30 * 60_000,
  'permissions.holdMs': 50_000,
  'server.port': 8787,
  'ui.theme': 'system',
  'ui.notifications': true,
  'app.startAtLogin': false,
  'setup.completedAt': null,
};
