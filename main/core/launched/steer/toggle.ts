/**
 * The mid-turn steering toggle: `features.midTurnSteering` (default off, hot, audited), in force
 * only while the steering kill switch `features.steering` is on. The host may pass an override
 * (its environment variable); while one is set it wins over the stored setting, and says so.
 * Every change of the setting is audited once with actor and surface; every change of the value
 * in force (a kill-switch flip included) is announced to the listeners at once.
 */
import { err, ok, type Result } from '../../../../common/result';
import type { SettingsRepo } from '../../store/settings-repo';
import { FeatureSwitch, type SwitchOrigin } from '../../steering/feature-switch';
import type { AuditSink } from '../../steering/steering-types';

/** Who changed it, from where. */
export type ToggleOrigin = SwitchOrigin;

/** The toggle as /api serves it. */
export interface MidTurnState {
  /** The value in force: setting (or override) and the kill switch. */
  readonly enabled: boolean;
  /** The stored setting. */
  readonly setting: boolean;
  /** The host's override, or null. */
  readonly override: boolean | null;
  /** The kill switch `features.steering`. */
  readonly steering: boolean;
}

/** The toggle: the audited setting is a FeatureSwitch; this adds the override and the value in force. */
export class MidTurnToggle {
  private readonly switch: FeatureSwitch;
  private readonly listeners = new Set<(enabled: boolean) => void>();
  private readonly unsubscribe: () => void;
  private last: boolean;

  constructor(
    private readonly settings: SettingsRepo,
    audit: AuditSink,
    private readonly override: boolean | null = null,
  ) {
    this.switch = new FeatureSwitch(settings, audit, {
      key: 'features.midTurnSteering',
      actions: { on: 'mid-turn-steering.enabled', off: 'mid-turn-steering.disabled' },
      detail: () =>
        this.override === null ? null : { override: this.override, inForce: this.enabled },
    });
    this.last = this.enabled;
    this.unsubscribe = settings.onChange((changed) => {
      if (changed.includes('features.midTurnSteering') || changed.includes('features.steering'))
        this.announce();
    });
  }

  /** Whether mid-turn steering is in force now. */
  get enabled(): boolean {
    return (
      this.settings.get('features.steering') &&
      (this.override ?? this.settings.get('features.midTurnSteering'))
    );
  }

  state(): MidTurnState {
    return {
      enabled: this.enabled,
      setting: this.switch.value,
      override: this.override,
      steering: this.settings.get('features.steering'),
    };
  }

  /** Stores the setting; a no-op write is still audited (outcome 'unchanged'). */
  set(
    enabled: unknown,
    by: ToggleOrigin,
  ): Result<MidTurnState, 'invalid-request' | 'store-failed'> {
    const written = this.switch.set(enabled, by);
    return written.ok ? ok(this.state()) : written;
  }

  /** Hears every change of the value in force; returns the unsubscribe function. */
  onChange(listener: (enabled: boolean) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  close(): void {
    this.unsubscribe();
    this.switch.close();
    this.listeners.clear();
  }

  private announce(): void {
    const now = this.enabled;
    if (now === this.last) return;
    this.last = now;
    for (const listener of [...this.listeners]) listener(now);
  }
}

/** The environment variable a host reads to force `features.midTurnSteering`. */
export const MID_TURN_ENV = 'AEP_COMPANION_MID_TURN_STEERING';

/**
 * The override a host passes in from its environment: `1`/`true`/`on` force it on, `0`/`false`/`off`
 * force it off, unset or empty means no override. Anything else is refused with a clear message
 * (a typo must not silently leave steering in an unexpected state).
 */
export function midTurnOverrideFromEnv(
  env: Readonly<Record<string, string | undefined>>,
): Result<boolean | null, 'invalid-override'> {
  const raw = env[MID_TURN_ENV]?.trim().toLowerCase();
  if (raw === undefined || raw === '') return ok(null);
  if (['1', 'true', 'on', 'yes'].includes(raw)) return ok(true);
  if (['0', 'false', 'off', 'no'].includes(raw)) return ok(false);
  return err(
    'invalid-override',
    `${MID_TURN_ENV} must be 1/true/on or 0/false/off (got '${env[MID_TURN_ENV]}')`,
  );
}
