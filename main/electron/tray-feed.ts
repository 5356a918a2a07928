/**
 * Keeps the tray's state current: reads the sessions over /api (the console's own contract) and
 * the kill switch from the settings, again whenever the relay carries a session event (coalesced,
 * so a busy agent costs one read per interval) and at once when steering is flipped from anywhere.
 * Plain Node; tray.ts renders what it reports.
 */
import type { SettingKey, Settings } from '../../common/settings';
import type { Relay } from '../core/relay/relay';
import { callApi, type DaemonEndpoint } from './daemon-api';
import { watchRelay } from './relay-watch';
import { EMPTY_TRAY_STATE, trayState, type TrayState } from './tray-items';

/** The settings the feed reads (the daemon's SettingsRepo). */
export interface FeedSettings {
  get<K extends SettingKey>(key: K): Settings[K];
  onChange(listener: (changed: readonly SettingKey[], now: Settings) => void): () => void;
}

/** What the feed needs. */
export interface TrayFeedDeps {
  readonly endpoint: DaemonEndpoint;
  readonly relay: Relay;
  readonly settings: FeedSettings;
  readonly onState: (state: TrayState) => void;
  /** How long session events are coalesced before the next read. */
  readonly coalesceMs?: number;
}

/** The tray's live state source. */
export class TrayFeed {
  private current: TrayState = EMPTY_TRAY_STATE;
  private timer: NodeJS.Timeout | null = null;
  private inFlight: Promise<TrayState> | null = null;
  private again = false;
  private closed = false;
  private readonly stops: (() => void)[] = [];

  constructor(private readonly deps: TrayFeedDeps) {
    this.stops.push(
      watchRelay(deps.relay, {}, (event) => {
        if (event.session !== undefined) this.soon();
      }),
    );
    this.stops.push(
      deps.settings.onChange((changed) => {
        if (changed.includes('features.steering')) void this.refresh();
      }),
    );
  }

  /** The last state reported. */
  get state(): TrayState {
    return this.current;
  }

  /** Reads the daemon now and reports the state (overlapping calls share one read, then read once more). */
  refresh(): Promise<TrayState> {
    if (this.inFlight !== null) {
      this.again = true;
      return this.inFlight;
    }
    this.inFlight = (async () => {
      let state: TrayState;
      do {
        this.again = false;
        const sessions = await callApi(this.deps.endpoint, 'GET /api/sessions');
        const steering = this.deps.settings.get('features.steering');
        state = sessions.ok ? trayState(sessions.value, steering) : { ...this.current, steeringEnabled: steering, available: false };
      } while (this.again && !this.closed);
      if (!this.closed) {
        this.current = state;
        this.deps.onState(state);
      }
      return state;
    })().finally(() => {
      this.inFlight = null;
    });
    return this.inFlight;
  }

  /** Stops listening. */
  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    for (const stop of this.stops.splice(0)) stop();
  }

  private soon(): void {
    if (this.timer !== null || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.refresh();
    }, this.deps.coalesceMs ?? 400);
    this.timer.unref?.();
  }
}
