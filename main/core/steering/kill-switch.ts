/**
 * The steering kill switch (`features.steering`, off by default, persisted). Every flip, whatever
 * path wrote the setting, is audited once with actor and surface and announced to the listeners
 * that withdraw the verb and drop the queue, at once.
 */
import type { Surface } from '../../../common/audit';
import type { SteeringState } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import type { SettingsRepo } from '../store/settings-repo';
import type { AuditSink } from './steering-types';

/** Who flipped the switch, from where. */
export interface FlipOrigin {
  readonly actor: string;
  readonly surface: Surface;
}

/** Heard after a flip took effect. */
export type FlipListener = (enabled: boolean, by: FlipOrigin) => void;

/** Flips that arrive without a named origin (a plain settings write) count as the operator through /api. */
const DEFAULT_ORIGIN: FlipOrigin = { actor: 'operator', surface: 'api' };

/** The kill switch over a settings repository. */
export class KillSwitch {
  private origin: FlipOrigin | null = null;
  private readonly listeners = new Set<FlipListener>();
  private readonly unsubscribe: () => void;

  constructor(
    private readonly settings: SettingsRepo,
    private readonly audit: AuditSink,
  ) {
    this.unsubscribe = settings.onChange((changed, now) => {
      if (!changed.includes('features.steering')) return;
      const by = this.origin ?? DEFAULT_ORIGIN;
      this.origin = null;
      const enabled = now['features.steering'];
      this.audit({
        actor: by.actor,
        surface: by.surface,
        action: enabled ? 'steering.enabled' : 'steering.disabled',
        session: null,
        commandId: null,
        outcome: 'ok',
        detail: null,
      });
      for (const listener of [...this.listeners]) listener(enabled, by);
    });
  }

  /** Whether steering is on now. */
  get enabled(): boolean {
    return this.settings.get('features.steering');
  }

  /** The state served by GET /api/steering. */
  state(): SteeringState {
    return { enabled: this.enabled };
  }

  /** Turns steering on or off; a no-op flip is still audited (outcome 'unchanged') so every request leaves a trace. */
  set(enabled: unknown, by: FlipOrigin): Result<SteeringState, 'invalid-request' | 'store-failed'> {
    if (typeof enabled !== 'boolean') return err('invalid-request', "'enabled' must be true or false");
    if (enabled === this.enabled) {
      this.audit({
        actor: by.actor,
        surface: by.surface,
        action: enabled ? 'steering.enabled' : 'steering.disabled',
        session: null,
        commandId: null,
        outcome: 'unchanged',
        detail: null,
      });
      return ok(this.state());
    }
    this.origin = by;
    try {
      const written = this.settings.set({ 'features.steering': enabled });
      if (!written.ok) return err('store-failed', written.error.message);
    } finally {
      this.origin = null;
    }
    return ok(this.state());
  }

  /** Listens to flips; returns the unsubscribe function. */
  onFlip(listener: FlipListener): () => void {
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
}
