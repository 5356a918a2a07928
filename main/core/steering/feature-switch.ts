/**
 * A hot, audited boolean setting (the steering kill switch, the mid-turn steering toggle): every
 * change of the stored value, whatever path wrote it, is audited once with actor and surface and
 * then announced to the listeners at once; a request that changes nothing is still audited
 * (outcome 'unchanged') so every request leaves a trace.
 */
import type { Surface } from '../../../common/audit';
import type { SettingKey, Settings } from '../../../common/settings';
import { err, ok, type Result } from '../../../common/result';
import type { SettingsRepo } from '../store/settings-repo';
import type { AuditSink } from './steering-types';

/** Who changed the setting, from where. */
export interface SwitchOrigin {
  readonly actor: string;
  readonly surface: Surface;
}

/** The boolean settings a switch can hold. */
export type SwitchKey = { [K in SettingKey]: Settings[K] extends boolean ? K : never }[SettingKey];

/** What one switch is: its setting, its audit actions, and what an applied change's audit row details. */
export interface SwitchConfig {
  readonly key: SwitchKey;
  readonly actions: { readonly on: string; readonly off: string };
  /** The `detail` of the audit row of an applied change (default null). */
  readonly detail?: () => Record<string, unknown> | null;
}

/** Changes that arrive without a named origin (a plain settings write) count as the operator through /api. */
const DEFAULT_ORIGIN: SwitchOrigin = { actor: 'operator', surface: 'api' };

/** One audited boolean setting over a settings repository. */
export class FeatureSwitch {
  private origin: SwitchOrigin | null = null;
  private readonly listeners = new Set<(value: boolean, by: SwitchOrigin) => void>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly settings: SettingsRepo,
    private readonly audit: AuditSink,
    private readonly config: SwitchConfig,
  ) {
    this.unsubscribe = settings.onChange((changed, now) => {
      if (!changed.includes(config.key)) return;
      const by = this.origin ?? DEFAULT_ORIGIN;
      this.origin = null;
      const value = now[config.key];
      this.record(value, by, 'ok', config.detail?.() ?? null);
      for (const listener of [...this.listeners]) listener(value, by);
    });
  }

  /** The stored value. */
  get value(): boolean {
    return this.settings.get(this.config.key);
  }

  /** Stores the value; a write that changes nothing is audited 'unchanged' and stores nothing. */
  set(value: unknown, by: SwitchOrigin): Result<null, 'invalid-request' | 'store-failed'> {
    if (typeof value !== 'boolean') return err('invalid-request', "'enabled' must be true or false");
    if (value === this.value) {
      this.record(value, by, 'unchanged', null);
      return ok(null);
    }
    this.origin = by;
    try {
      const written = this.settings.set({ [this.config.key]: value });
      if (!written.ok) return err('store-failed', written.error.message);
    } finally {
      this.origin = null;
    }
    return ok(null);
  }

  /** Hears every applied change of the stored value (after its audit row); returns the unsubscribe function. */
  onChange(listener: (value: boolean, by: SwitchOrigin) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Stops listening to the settings. */
  close(): void {
    this.unsubscribe();
    this.listeners.clear();
  }

  private record(value: boolean, by: SwitchOrigin, outcome: 'ok' | 'unchanged', detail: Record<string, unknown> | null): void {
    this.audit({
      actor: by.actor,
      surface: by.surface,
      action: value ? this.config.actions.on : this.config.actions.off,
      session: null,
      commandId: null,
      outcome,
      detail,
    });
  }
}
