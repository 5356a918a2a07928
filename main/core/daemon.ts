/**
 * `startDaemon(options)`: composes the core (store, relay, listener, /api, features) and returns a
 * handle. Both hosts call it: the Electron main process and the headless `serve` command. Every
 * path and option arrives as a parameter; nothing here reads the environment.
 */
import { accessSync, chmodSync, constants, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { VendorId } from '../../common/vendors';
import { ApiRouter } from './api/index';
import { auditApi } from './api/audit-api';
import { historyApi } from './api/history-api';
import { settingsApi } from './api/settings-api';
import { statusApi } from './api/status-api';
import { startSearch } from './api/search-api';
import { tokensApi } from './api/tokens-api';
import type { DaemonContext, Disposer, Feature } from './daemon-context';
import { ClaimError, claimDataDir, type DataDirClaim } from './daemon-record';
import { describeHolder } from './store/daemon-lock';
import { FEATURES } from './features';
import type { InstallerHost } from './installer/installer-env';
import { warnHookPortMismatches } from './installer/hook-ports';
import { createLogger, type Logger } from './logger';
import { Relay } from './relay/relay';
import type { RelayLimits } from './relay/relay-limits';
import { registerRelayRoutes } from './relay/relay-routes';
import { sendJson } from './server/http-util';
import { startHttpServer, type HttpServerHandle, type RefusalRecord } from './server/http-server';
import { RouteTable } from './server/route-table';
import { staticConsoleRoute } from './server/static-console';
import { TokenStore } from './server/tokens';
import { AuditLog } from './store/audit-log';
import { EventStore } from './store/event-store';
import { openDb } from './store/open-db';
import { RefusalTally } from './store/refusal-tally';
import { startRetention } from './store/retention';
import { SettingsRepo } from './store/settings-repo';

const log = createLogger('daemon');

/** Options of `startDaemon`. */
export interface DaemonOptions {
  /** Where the database, the tokens and daemon.json live (created if missing). */
  readonly dataDir: string;
  /** How long start waits for a brief holder of the data directory's lock, such as a CLI command (ms, default 5 s). */
  readonly lockWaitMs?: number;
  /** Port to bind; 0 picks a free one; absent: the stored `server.port` setting (8787 by default). */
  readonly port?: number;
  /** Loopback address to bind (default 127.0.0.1). */
  readonly host?: string;
  /** Retention per session; when given it is also stored as the setting. */
  readonly maxEventsPerSession?: number;
  /** The built console to serve at / (browser mode). */
  readonly consoleDir?: string;
  /** The daemon's logger (exposed to features); modules still log through their own scope. */
  readonly logger?: Logger;
  /** Features to start besides (after) the product's own list in features.ts. */
  readonly features?: readonly Feature[];
  /** Replaces the product's feature list (tests that want a bare relay pass []). */
  readonly baseFeatures?: readonly Feature[];
  /** Origins allowed besides the daemon's own (e.g. the desktop renderer's). */
  readonly allowedOrigins?: readonly string[];
  /** Product version reported by /api/status. */
  readonly version?: string;
  /** Relay bounds (tests shrink them). */
  readonly relayLimits?: Partial<RelayLimits>;
  /** The user's machine as the installer routes see it (home, PATH, config dirs); resolved by the host. */
  readonly installerHost?: InstallerHost;
  /** Settings the host forces (its environment), winning over the stored value while set. */
  readonly settingOverrides?: DaemonContext['settingOverrides'];
  /**
   * better-sqlite3's native binding for this runtime (its `nativeBinding` option), for every
   * connection the daemon opens; absent: the package's own build. Chosen by the host
   * (main/sqlite-binding.ts): the Electron main process needs one built for Electron's ABI.
   */
  readonly nativeBinding?: string;
}

/** A running daemon. */
export interface DaemonHandle {
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  /** The current tokens (live after a rotation). */
  readonly tokens: { readonly operator: string; readonly hook: string };
  readonly context: DaemonContext;
  /** Drains (closing frames, SSE ends), disposes features, closes the listener and the database. */
  close(): Promise<void>;
}

/** Why the daemon could not start; `message` is one line fit for a terminal. */
export class DaemonStartError extends Error {
  constructor(
    readonly code: 'data-dir' | 'port-in-use' | 'listen-failed' | 'database' | 'locked',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

function prepareDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    accessSync(dataDir, constants.W_OK);
    // The tokens and the history live here: a directory others can read is tightened to 0700.
    if (process.platform !== 'win32' && (statSync(dataDir).mode & 0o077) !== 0) {
      chmodSync(dataDir, 0o700);
      log.info('data directory was readable by others; tightened to 0700', { dataDir });
    }
  } catch (e) {
    throw new DaemonStartError(
      'data-dir',
      `cannot use data directory ${dataDir}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
      { cause: e },
    );
  }
}

/** Runs disposers in reverse registration order; one failing does not stop the others. */
async function disposeAll(disposers: Disposer[]): Promise<void> {
  for (const dispose of disposers.splice(0).reverse()) {
    try {
      await dispose();
    } catch (e) {
      log.warn('dispose failed', { error: String(e) });
    }
  }
}

/** Starts the daemon core. Throws `DaemonStartError` for the expected start failures. */
export async function startDaemon(options: DaemonOptions): Promise<DaemonHandle> {
  const dataDir = options.dataDir;
  prepareDataDir(dataDir);
  // Held for the daemon's lifetime (an OS file lock, freed even by kill -9): a second daemon on this
  // data directory cannot start, and no CLI command writes the database behind this one's back.
  let claim: DataDirClaim;
  try {
    let said = false;
    claim = await claimDataDir(dataDir, {
      waitMs: options.lockWaitMs,
      nativeBinding: options.nativeBinding,
      onWait: (holder) => {
        if (!said) log.warn(`waiting for ${describeHolder(holder)} to release ${dataDir}`);
        said = true;
      },
    });
  } catch (e) {
    if (!(e instanceof ClaimError)) throw e;
    throw new DaemonStartError(e.code === 'locked' ? 'locked' : 'data-dir', e.message, { cause: e });
  }
  let tokens: TokenStore;
  try {
    tokens = TokenStore.open(dataDir);
  } catch (e) {
    claim.release();
    throw new DaemonStartError(
      'data-dir',
      `cannot create the token files in ${dataDir}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  let db: Database;
  const dbFile = join(dataDir, 'companion.db');
  try {
    // WAL, synchronous=NORMAL, SQLite's own auto-checkpoint; what an earlier version left beside
    // the database (its commit journal) is applied first (store/legacy-upgrade.ts).
    db = openDb(dbFile, {
      nativeBinding: options.nativeBinding,
      onLegacy: (message, fields) => log.warn(message, fields),
    });
  } catch (e) {
    tokens.dispose();
    claim.release();
    throw new DaemonStartError('database', (e as Error).message, { cause: e });
  }

  const disposers: Disposer[] = [];
  const featureDisposers: Disposer[] = [];
  let server: HttpServerHandle | undefined;
  try {
    const settings = new SettingsRepo(db, {
      onListenerError: (e) => log.error('settings listener failed', { error: String(e) }),
    });
    if (options.maxEventsPerSession !== undefined) {
      const set = settings.set({ 'retention.maxEventsPerSession': options.maxEventsPerSession });
      if (!set.ok) throw new DaemonStartError('database', set.error.message);
    }
    const eventStore = new EventStore(db, {
      maxEventsPerSession: settings.get('retention.maxEventsPerSession'),
    });
    disposers.push(
      settings.onChange((changed, now) => {
        if (changed.includes('retention.maxEventsPerSession'))
          eventStore.setRetention(now['retention.maxEventsPerSession']);
      }),
    );
    const audit = new AuditLog(db);
    disposers.push(
      startRetention(db, () => settings.all(), {
        onSwept: (removed) => log.info('retention sweep', { ...removed }),
        onError: (e) => log.warn('retention sweep failed', { error: String(e) }),
      }),
    );
    // The pair is built again only when a token rotates: every ingest asks for it.
    let secrets: readonly string[] = [];
    // Secrets features hold (a vendor server's key): scrubbed like the daemon's own tokens.
    const featureSecrets = new Set<string>();
    const currentSecrets = (): readonly string[] => {
      const operator = tokens.get('operator');
      const hook = tokens.get('hook');
      if (secrets[0] !== operator || secrets[1] !== hook || secrets.length !== 2 + featureSecrets.size) secrets = [operator, hook, ...featureSecrets];
      return secrets;
    };
    const relay = new Relay({
      store: eventStore,
      limits: options.relayLimits,
      audit: (row) => audit.append(row),
      // The daemon's own tokens never reach the history or a stream, whatever an emitter sends.
      secrets: currentSecrets,
    });
    const routes = new RouteTable();
    const api = new ApiRouter();

    const refusals = new RefusalTally(db);
    const onRefusal = (r: RefusalRecord): void => {
      try {
        // Aggregated per reason and minute (bounded rows), not one audit row per refused request.
        refusals.record({
          actor: r.actor,
          surface: r.upgrade ? 'ws' : 'api',
          method: r.method,
          path: r.path,
          code: r.code,
          reason: r.reason,
        });
      } catch (e) {
        log.warn('could not audit a refusal', { error: String(e) });
      }
    };
    // Bound only once every route (features included) is registered: no early request gets a 404.
    let url = '';
    // The host's port (a --port flag, a launch option) wins; else the setting stored in this database.
    const listenPort = options.port ?? settings.get('server.port');
    let port = listenPort;
    const lastHook = new Map<VendorId, number>();
    const context: DaemonContext = {
      installerHost: options.installerHost,
      settingOverrides: options.settingOverrides ?? {},
      dataDir,
      get url() {
        return url;
      },
      get port() {
        return port;
      },
      version: options.version ?? '0.0.0-dev',
      startedAt: new Date().toISOString(),
      db,
      eventStore,
      settings,
      audit,
      relay,
      routes,
      api,
      logger: options.logger ?? createLogger('feature'),
      get tokens() {
        return tokens.snapshot();
      },
      reportHook: (vendor, timeMs) => {
        lastHook.set(vendor, timeMs ?? Date.now());
      },
      addSecret: (secret) => {
        featureSecrets.add(secret);
        secrets = [];
        return () => {
          featureSecrets.delete(secret);
          secrets = [];
        };
      },
      lastHooks: () => Object.fromEntries([...lastHook].map(([vendor, ms]) => [vendor, new Date(ms).toISOString()])),
    };

    disposers.push(
      registerRelayRoutes(
        routes,
        relay,
        {
          agent: 'aep-companion',
          get instance() {
            return `127.0.0.1:${port}/${process.pid}`;
          },
        },
      ),
    );
    disposers.push(
      routes.register({
        method: 'GET',
        path: '/healthz',
        auth: 'none',
        handler: (_req, res, ctx) => {
          if (ctx.principal === 'anonymous') return sendJson(res, 200, { ok: true });
          const stored = eventStore.counts();
          const live = relay.counts();
          sendJson(res, 200, {
            ok: true,
            sessions: stored.sessions,
            events: stored.events,
            connections: live.connections,
            subscribers: live.subscribers,
            uptime_s: Math.round(process.uptime()),
          });
        },
      }),
    );
    for (const route of api.routes()) disposers.push(routes.register(route));
    disposers.push(api.register(statusApi(context)));
    const search = startSearch(context, {
      onError: (e) => log.warn('search indexing failed', { error: String(e) }),
    });
    disposers.push(search.close, api.register(search.handlers));
    disposers.push(api.register(settingsApi(context)));
    disposers.push(api.register(auditApi(context)));
    disposers.push(api.register(historyApi(context)));
    disposers.push(api.register(tokensApi(context, tokens)));
    if (options.consoleDir !== undefined)
      disposers.push(routes.register(staticConsoleRoute(options.consoleDir, () => port)));

    for (const feature of [...(options.baseFeatures ?? FEATURES), ...(options.features ?? [])]) {
      featureDisposers.push(await feature(context));
    }
    server = await startHttpServer({
      host: options.host ?? '127.0.0.1',
      port: listenPort,
      routes,
      tokens,
      extraOrigins: options.allowedOrigins,
      tokenlessWatch: () => settings.get('security.tokenlessWatch'),
      onRefusal,
      onFault: (request, error) => relay.recordFault('api', request, error),
    });
    url = server.url;
    port = server.port;
    // Synchronously, before this turn ends: daemon.json names the URL before any request is read.
    claim.recordUrl(url);

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        // Drain, in order. Features go first while the relay still delivers: they stop admitting
        // commands (nacked "shutting down"), decide those admitted, and commit what they owe on the
        // way out (dismissed held hooks, dropped instructions, ended sessions).
        await disposeAll(featureDisposers);
        // Everything admitted is committed before any subscriber hears the closing frame.
        eventStore.flush();
        await new Promise((resolve) => setImmediate(resolve));
        eventStore.flush();
        relay.shutdown('shutting-down');
        await disposeAll(disposers);
        await server!.close();
        eventStore.flush();
        // Let commits scheduled by the last requests settle before the database goes away.
        await new Promise((resolve) => setImmediate(resolve));
        eventStore.flush();
        // The last connection to close checkpoints the rest of the WAL.
        db.close();
        tokens.dispose();
        claim.release();
      })());

    log.info('daemon started', { url, dataDir });
    // Installed HTTP hooks naming another port never arrive: said at start (also /api/status, doctor).
    void warnHookPortMismatches({ dataDir, daemonUrl: url }, (m, f) => context.logger.warn(m, f));
    return {
      url,
      port,
      dataDir,
      get tokens() {
        return tokens.snapshot();
      },
      context,
      close,
    };
  } catch (e) {
    await disposeAll(featureDisposers);
    await disposeAll(disposers);
    if (server) await server.close();
    db.close();
    tokens.dispose();
    claim.release();
    if (e instanceof DaemonStartError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'port-in-use' || code === 'listen-failed')
      throw new DaemonStartError(code, (e as Error).message, { cause: e });
    throw e;
  }
}
