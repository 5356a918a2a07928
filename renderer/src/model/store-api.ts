/**
 * What the console knows from /api: sessions, vendor profiles, daemon status, the kill switch and
 * the few settings the views explain (capture level, permission hold). Polled, and refreshed soon
 * after stream activity (debounced, never per event); launched sessions' state is pushed on the
 * stream (`applySessionState`), never polled.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { MidTurnSteeringState, SteerMechanism, SteerMode } from '../../../common/agent-inputs';
import type { LaunchedSessionInfo, LaunchedState } from '../../../common/agents';
import type { StatusInfo } from '../../../common/api';
import type { SessionSummary } from '../../../common/sessions';
import type { Settings } from '../../../common/settings';
import type { VendorProfile } from '../../../common/vendors';
import type { ApiCall } from '../api/api-client';
import { StoreNotifier, type Schedule } from './store-notifier';

const POLL_MS = 4_000;

/** The settings the console reads to explain what it shows. */
export type ShownSettings = Pick<Settings, 'capture.ceiling' | 'permissions.holdMs'>;

/** The /api side of the store. */
export class ApiStore extends StoreNotifier {
  sessions: readonly SessionSummary[] = [];
  sessionsLoaded = false;
  sessionsError: string | null = null;
  vendors: readonly VendorProfile[] = [];
  status: StatusInfo | null = null;
  statusError: string | null = null;
  /** The daemon answered /api with 401/403: the token is wrong or was rotated elsewhere. */
  tokenRefused = false;
  steeringEnabled: boolean | null = null;
  settings: ShownSettings | null = null;
  /** Sessions the companion launched (live and earlier), by session id. */
  launched: ReadonlyMap<string, LaunchedSessionInfo> = new Map();
  /** The mid-turn steering toggle as in force, or null when the daemon has none. */
  midTurn: MidTurnSteeringState | null = null;

  private sessionsTimer: ReturnType<typeof setTimeout> | null = null;
  private activityTimer: ReturnType<typeof setTimeout> | null = null;
  private pollTimer: ReturnType<typeof setInterval> | null = null;

  constructor(
    protected readonly api: ApiCall,
    schedule?: Schedule,
  ) {
    super(schedule);
  }

  /** Loads everything once and starts polling; `tick` runs with every poll. */
  protected startPolling(tick: () => void): void {
    void this.refreshVendors();
    void this.refreshSessions();
    void this.refreshStatus();
    void this.refreshSettings();
    void this.refreshLaunched();
    this.pollTimer = setInterval(() => {
      void this.refreshStatus();
      void this.refreshSessions();
      void this.refreshSettings();
      // Launched sessions' state and steer support arrive pushed (`x.{agent}.session.state`).
      void this.refreshMidTurn();
      tick();
    }, POLL_MS);
  }

  /** Stops the polling and pending refreshes. */
  protected stopPolling(): void {
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.sessionsTimer) clearTimeout(this.sessionsTimer);
    if (this.activityTimer) clearTimeout(this.activityTimer);
    if (this.settingsTimer) clearTimeout(this.settingsTimer);
    this.pollTimer = this.sessionsTimer = this.activityTimer = this.settingsTimer = null;
  }

  /** Reloads the session list. */
  async refreshSessions(): Promise<void> {
    const r = await this.api('GET /api/sessions', undefined);
    if (r.ok) {
      this.sessions = r.value;
      this.sessionsLoaded = true;
      this.sessionsError = null;
      this.sessionsRefreshed();
    } else {
      this.sessionsError = r.error.message;
    }
    this.touch('sessions');
  }

  /** Hook for subclasses: the session list was just replaced. */
  protected sessionsRefreshed(): void {}

  /** Refreshes the session list within 250 ms (coalesced). */
  protected refreshSessionsSoon(): void {
    if (this.sessionsTimer) return;
    this.sessionsTimer = setTimeout(() => {
      this.sessionsTimer = null;
      void this.refreshSessions();
    }, 250);
  }

  /** Refreshes sessions and status within a second of activity (coalesced). */
  protected refreshSoon(): void {
    if (this.activityTimer) return;
    this.activityTimer = setTimeout(() => {
      this.activityTimer = null;
      void this.refreshSessions();
      void this.refreshStatus();
    }, 1_000);
  }

  /**
   * A launched session's pushed state (`x.{agent}.session.state`): its coarse state, end reason
   * and steer support replace what the list holds; a session not listed yet loads the list.
   */
  applySessionState(event: AepEvent): void {
    const known = event.session ? this.launched.get(event.session) : undefined;
    if (!known) {
      void this.refreshLaunched();
      return;
    }
    const d = (event.data ?? {}) as Record<string, unknown>;
    const state = typeof d['state'] === 'string' ? (d['state'] as LaunchedState) : known.state;
    const steer =
      typeof d['supports_steering'] === 'boolean' && typeof d['mode'] === 'string'
        ? {
            supports_steering: d['supports_steering'] as boolean,
            mode: d['mode'] as SteerMode,
            badge: typeof d['badge'] === 'string' ? (d['badge'] as string) : (known.steer?.badge ?? ''),
            reason: typeof d['support_reason'] === 'string' ? (d['support_reason'] as string) : '',
            mechanism: (typeof d['mechanism'] === 'string' ? d['mechanism'] : 'none') as SteerMechanism,
          }
        : known.steer;
    const endReason = typeof d['reason'] === 'string' ? (d['reason'] as string) : known.endReason;
    const next = new Map(this.launched);
    next.set(known.session, { ...known, state, endReason, ...(steer ? { steer } : {}) });
    this.launched = next;
    this.touch('sessions');
  }

  /** Reloads the mid-turn toggle alone. */
  async refreshMidTurn(): Promise<void> {
    const midTurn = await this.api('GET /api/mid-turn-steering', undefined);
    if (midTurn.ok) {
      this.midTurn = midTurn.value;
      this.touch('sessions');
    }
  }

  /** Reloads the launched sessions and the mid-turn toggle (absent on a daemon without the host). */
  async refreshLaunched(): Promise<void> {
    const [launched, midTurn] = await Promise.all([this.api('GET /api/launched', undefined), this.api('GET /api/mid-turn-steering', undefined)]);
    if (launched.ok) this.launched = new Map(launched.value.map((l) => [l.session, l]));
    if (midTurn.ok) this.midTurn = midTurn.value;
    if (launched.ok || midTurn.ok) this.touch('sessions');
  }

  /** Flips mid-turn steering; the shown state is the daemon's answer. */
  async setMidTurn(enabled: boolean): Promise<string | null> {
    const r = await this.api('PUT /api/mid-turn-steering', { enabled, surface: 'console' });
    if (!r.ok) return r.error.message;
    this.midTurn = r.value;
    this.touch('sessions');
    void this.refreshLaunched();
    return null;
  }

  /** Reloads the vendor profiles (steerability facts). */
  async refreshVendors(): Promise<void> {
    const r = await this.api('GET /api/vendors', undefined);
    if (r.ok) {
      this.vendors = r.value;
      this.touch('sessions');
    }
  }

  private settingsTimer: ReturnType<typeof setTimeout> | null = null;

  /** Reloads the settings within 100 ms (coalesced over a replay of many requests). */
  protected refreshSettingsSoon(): void {
    if (this.settingsTimer) return;
    this.settingsTimer = setTimeout(() => {
      this.settingsTimer = null;
      void this.refreshSettings();
    }, 100);
  }

  /** Reloads the settings the views explain. */
  async refreshSettings(): Promise<void> {
    const r = await this.api('GET /api/settings', undefined);
    if (r.ok && r.value) {
      this.settings = { 'capture.ceiling': r.value['capture.ceiling'], 'permissions.holdMs': r.value['permissions.holdMs'] };
      this.touch('status');
    }
  }

  /** Reloads daemon status: counts, last hooks, the kill switch. */
  async refreshStatus(): Promise<void> {
    const r = await this.api('GET /api/status', undefined);
    if (r.ok) {
      this.status = r.value;
      this.statusError = null;
      this.steeringEnabled = r.value.steeringEnabled;
    } else {
      this.statusError = r.error.message;
    }
    const refused = !r.ok && r.error.code === 'unauthorized';
    if (refused !== this.tokenRefused) {
      this.tokenRefused = refused;
      this.touch('connection');
    }
    this.touch('status');
    this.touch('sessions');
  }

  /** Flips the kill switch; the shown state is the daemon's answer, never the request. */
  async setSteering(enabled: boolean): Promise<string | null> {
    const r = await this.api('PUT /api/steering', { enabled, surface: 'console' });
    if (!r.ok) return r.error.message;
    this.steeringEnabled = r.value.enabled;
    this.touch('status');
    this.touch('sessions');
    void this.refreshStatus();
    this.steeringChanged();
    return null;
  }

  /** Hook for subclasses: the kill switch changed from this window. */
  protected steeringChanged(): void {}
}
