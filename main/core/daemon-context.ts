/**
 * What a feature (hooks, steering, installer API, …) receives when the daemon starts it: the
 * store and its repositories, the relay, the route table, the /api registry, the logger and the
 * paths and tokens of this daemon. Features return a disposer the daemon calls on close.
 */
import type { Database } from 'better-sqlite3';
import type { VendorId } from '../../common/vendors';
import type { ApiHandlers } from './api/index';
import type { InstallerHost } from './installer/installer-env';
import type { Logger } from './logger';
import type { Relay } from './relay/relay';
import type { Disposer, Route } from './server/route-table';
import type { AuditLog } from './store/audit-log';
import type { EventStore } from './store/event-store';
import type { SettingsRepo } from './store/settings-repo';

export type { Disposer } from './server/route-table';

/** The shared state and registries of one running daemon. */
export interface DaemonContext {
  /** The data directory (database, tokens, daemon.json). */
  readonly dataDir: string;
  /** The daemon's base URL, e.g. http://127.0.0.1:8787. */
  readonly url: string;
  readonly port: number;
  /** The product version reported by /api/status. */
  readonly version: string;
  /** ISO time the daemon started. */
  readonly startedAt: string;
  readonly db: Database;
  readonly eventStore: EventStore;
  readonly settings: SettingsRepo;
  readonly audit: AuditLog;
  readonly relay: Relay;
  /** The route table of the listener (Host/Origin/token checks run before every handler). */
  readonly routes: { register(route: Route): Disposer };
  /** The /api router: register typed handlers for routes of common/api.ts. */
  readonly api: { register(handlers: ApiHandlers): Disposer };
  /** The daemon's logger (modules still create their own scoped one). */
  readonly logger: Logger;
  /** The current tokens (live: a rotation is visible at once). */
  readonly tokens: { readonly operator: string; readonly hook: string };
  /** Records that a vendor hook was seen at `timeMs` (default now; shown by /api/status, formatted only then). */
  reportHook(vendor: VendorId, timeMs?: number): void;
  /** Adds a secret the relay scrubs from every event like the daemon's tokens (a vendor key); the disposer removes it. */
  addSecret?(secret: string): () => void;
  /** Last hook time per vendor. */
  lastHooks(): Partial<Record<VendorId, string>>;
  /** The user's machine for the installer routes; absent when the host gave none (routes answer 503). */
  readonly installerHost?: InstallerHost;
  /** Settings the host forces from its environment (e.g. `AEP_COMPANION_MID_TURN_STEERING`); they win while set. */
  readonly settingOverrides?: { readonly 'features.midTurnSteering'?: boolean };
}

/** A feature: started with the daemon, disposed (in reverse order) when it closes. */
export type Feature = (ctx: DaemonContext) => Disposer | Promise<Disposer>;
