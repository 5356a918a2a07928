/** Operator settings: typed by common/settings.ts, validated on write, defaults for what was never set. */
import type { Database, Statement } from 'better-sqlite3';
import { CAPTURES } from '../../../common/aep/envelope';
import { AGENT_IDS } from '../../../common/agents';
import { DEFAULT_SETTINGS, LAUNCH_RECENT_FOLDERS, type SettingKey, type Settings } from '../../../common/settings';
import { err, ok, type Result } from '../../../common/result';

/** Why a settings change was refused. */
export type SettingsErrorCode = 'unknown-setting' | 'invalid-setting';

/** Called after a successful change with the keys whose value changed and the settings now in force. */
export type SettingsListener = (changed: readonly SettingKey[], settings: Settings) => void;

/** Construction options for `SettingsRepo`. */
export interface SettingsRepoOptions {
  /** Receives a listener's exception; by default the first one is rethrown from `set` after every listener ran. */
  readonly onListenerError?: (error: unknown) => void;
}

/** Returns an error message for a bad value, or null when the value is acceptable. */
type Check = (value: unknown) => string | null;

const boolean: Check = (v) => (typeof v === 'boolean' ? null : 'must be true or false');
const oneOf =
  (allowed: readonly string[]): Check =>
  (v) =>
    typeof v === 'string' && allowed.includes(v)
      ? null
      : `must be one of ${allowed.map((a) => `'${a}'`).join(', ')}`;
const integer =
  (min: number, max: number): Check =>
  (v) =>
    typeof v === 'number' && Number.isInteger(v) && v >= min && v <= max
      ? null
      : `must be an integer from ${min} to ${max}`;
const isoTimeOrNull: Check = (v) =>
  v === null ||
  (typeof v === 'string' &&
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v) &&
    !Number.isNaN(Date.parse(v)))
    ? null
    : 'must be an ISO 8601 date-time or null';

const argvOrNull: Check = (v) =>
  v === null ||
  (Array.isArray(v) && v.length > 0 && v.length <= 64 && v.every((a) => typeof a === 'string' && a !== '' && a.length <= 4096))
    ? null
    : 'must be null or a non-empty array of non-empty strings (the executable first)';

const agentOrNull: Check = (v) =>
  v === null || (AGENT_IDS as readonly unknown[]).includes(v) ? null : `must be null or one of ${AGENT_IDS.join(', ')}`;

const folders: Check = (v) =>
  Array.isArray(v) && v.length <= LAUNCH_RECENT_FOLDERS && v.every((a) => typeof a === 'string' && a !== '' && a.length <= 4096)
    ? null
    : `must be an array of at most ${LAUNCH_RECENT_FOLDERS} non-empty paths`;

/** The accepted values of each setting. Ranges keep the daemon working (e.g. a retention of 0 would hold nothing). */
const CHECKS: { readonly [K in SettingKey]: Check } = {
  'features.steering': boolean,
  'features.midTurnSteering': boolean,
  'features.transcripts': boolean,
  'security.tokenlessWatch': boolean,
  'capture.ceiling': oneOf(CAPTURES),
  'capture.attentionCeiling': oneOf(CAPTURES),
  'retention.maxEventsPerSession': integer(1, 10_000_000),
  'retention.eventDays': integer(1, 36_500),
  'retention.sessionDays': integer(1, 36_500),
  'retention.endedSessionDays': integer(1, 36_500),
  'retention.steeringDays': integer(1, 36_500),
  'retention.auditDays': integer(1, 36_500),
  'steering.idleExpiryMs': integer(1_000, 7 * 24 * 3_600_000),
  'permissions.holdMs': integer(1_000, 3_600_000),
  'server.port': integer(1, 65_535),
  'ui.theme': oneOf(['system', 'light', 'dark']),
  'ui.notifications': boolean,
  'app.startAtLogin': boolean,
  'setup.completedAt': isoTimeOrNull,
  'setup.skippedAt': isoTimeOrNull,
  'agents.claude-code.command': argvOrNull,
  'agents.codex.command': argvOrNull,
  'agents.qwen-code.command': argvOrNull,
  'agents.gemini-cli.command': argvOrNull,
  'launch.lastAgent': agentOrNull,
  'launch.recentFolders': folders,
};

/** True when `key` names a known setting. */
export const isSettingKey = (key: string): key is SettingKey =>
  Object.prototype.hasOwnProperty.call(CHECKS, key);

/** Checks one value against its setting's rule; the error message names the key. */
export function validateSetting(key: string, value: unknown): Result<unknown, SettingsErrorCode> {
  if (!isSettingKey(key)) return err('unknown-setting', `unknown setting '${key}'`);
  const problem = CHECKS[key](value);
  return problem === null
    ? ok(value)
    : err(
        'invalid-setting',
        `setting '${key}' ${problem} (got ${JSON.stringify(value) ?? String(value)})`,
      );
}

/** The `settings` table behind a typed, validated, cached view with change listeners. */
export class SettingsRepo {
  private current: Settings;
  private readonly listeners = new Set<SettingsListener>();
  private readonly upsertStmt: Statement;
  private readonly writeMany: (entries: readonly (readonly [SettingKey, unknown])[]) => void;

  constructor(
    private readonly db: Database,
    private readonly options: SettingsRepoOptions = {},
  ) {
    this.upsertStmt = db.prepare(
      `INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`,
    );
    this.writeMany = db.transaction((entries: readonly (readonly [SettingKey, unknown])[]) => {
      for (const [key, value] of entries) this.upsertStmt.run(key, JSON.stringify(value));
    });
    this.current = this.load();
  }

  /** The value in force for `key` (the default when never set). */
  get<K extends SettingKey>(key: K): Settings[K] {
    return this.current[key];
  }

  /** Every setting, defaults filled in. */
  all(): Settings {
    return this.current;
  }

  /**
   * Validates and stores a partial update, all or nothing. Unknown keys and bad values are refused
   * with a message naming the key. Listeners hear about the keys whose value actually changed.
   */
  set(
    partial: Partial<Settings> | Readonly<Record<string, unknown>>,
  ): Result<Settings, SettingsErrorCode> {
    if (typeof partial !== 'object' || partial === null || Array.isArray(partial)) {
      return err('invalid-setting', 'settings must be an object of key → value');
    }
    const entries: [SettingKey, unknown][] = [];
    for (const [key, value] of Object.entries(partial)) {
      const checked = validateSetting(key, value);
      if (!checked.ok) return checked;
      entries.push([key as SettingKey, value]);
    }
    const changed = entries
      .filter(([key, value]) => this.current[key] !== value)
      .map(([key]) => key);
    if (changed.length === 0) return ok(this.current);
    this.writeMany(entries.filter(([key]) => changed.includes(key)));
    this.current = { ...this.current, ...Object.fromEntries(entries) } as Settings;
    const snapshot = this.current;
    // One listener's failure must not keep the others from hearing about a change already stored.
    const failures: unknown[] = [];
    for (const listener of [...this.listeners]) {
      try {
        listener(changed, snapshot);
      } catch (error) {
        failures.push(error);
      }
    }
    if (failures.length > 0) {
      if (this.options.onListenerError === undefined) throw failures[0];
      for (const failure of failures) this.options.onListenerError(failure);
    }
    return ok(snapshot);
  }

  /** Subscribes to successful changes; returns the unsubscribe function. */
  onChange(listener: SettingsListener): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Stored values that no longer validate (an older build, a hand edit) fall back to the default. */
  private load(): Settings {
    const values: Record<string, unknown> = { ...DEFAULT_SETTINGS };
    for (const row of this.db.prepare(`SELECT key, value FROM settings`).all() as {
      key: string;
      value: string;
    }[]) {
      let value: unknown;
      try {
        value = JSON.parse(row.value);
      } catch {
        continue;
      }
      if (validateSetting(row.key, value).ok) values[row.key] = value;
    }
    return values as unknown as Settings;
  }
}
