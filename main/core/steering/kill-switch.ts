/**
 * The steering kill switch (`features.steering`, off by default, persisted): a FeatureSwitch. Every
 * flip, whatever path wrote the setting, is audited once with actor and surface and announced to
 * the listeners that withdraw the verb and drop the queue, at once.
 */
import type { SteeringState } from '../../../common/api';
import { ok, type Result } from '../../../common/result';
import type { SettingsRepo } from '../store/settings-repo';
import { FeatureSwitch, type SwitchOrigin } from './feature-switch';
import type { AuditSink } from './steering-types';

/** Who flipped the switch, from where. */
export type FlipOrigin = SwitchOrigin;

/** Heard after a flip took effect. */
export type FlipListener = (enabled: boolean, by: FlipOrigin) => void;

/** The kill switch over a settings repository. */
export class KillSwitch {
  private readonly switch: FeatureSwitch;

  constructor(settings: SettingsRepo, audit: AuditSink) {
    this.switch = new FeatureSwitch(settings, audit, { key: 'features.steering', actions: { on: 'steering.enabled', off: 'steering.disabled' } });
  }

  /** Whether steering is on now. */
  get enabled(): boolean {
    return this.switch.value;
  }

  /** The state served by GET /api/steering. */
  state(): SteeringState {
    return { enabled: this.enabled };
  }

  /** Turns steering on or off; a no-op flip is still audited (outcome 'unchanged') so every request leaves a trace. */
  set(enabled: unknown, by: FlipOrigin): Result<SteeringState, 'invalid-request' | 'store-failed'> {
    const written = this.switch.set(enabled, by);
    return written.ok ? ok(this.state()) : written;
  }

  /** Listens to flips; returns the unsubscribe function. */
  onFlip(listener: FlipListener): () => void {
    return this.switch.onChange(listener);
  }

  /** Stops listening to the settings. */
  close(): void {
    this.switch.close();
  }
}
