/**
 * `startDaemon(options)`: composes the core (store, relay, listener, /api, features) and returns a
 * handle. Both hosts call it: the Electron main process and the headless `serve` command. Every
 * path and option arrives as a parameter; nothing here reads the environment.
 */
import { accessSync, constants, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { VendorId } from '../../common/vendors';
import { ApiRouter } from './api/index';
import { auditApi } from './api/audit-api';
import { settingsApi } from './api/settings-api';
import { statusApi } from './api/status-api';
import { tokensApi } from './api/tokens-api';
import type { DaemonContext, Disposer, Feature } from './daemon-context';
import { FEATURES } from './features';
import { startWalCheckpointer } from './store/wal-checkpointer';
import type { InstallerHost } from './installer/installer-env';
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
import { SettingsRepo } from './store/settings-repo';

const log = createLogger('daemon');

/** Options of `startDaemon`. */
export interface DaemonOptions {
  /** Where the database, the tokens and daemon.json live (created if missing). */
  readonly dataDir: string;
  /** Port to bind; 0 picks a free one. */
  readonly port: number;
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
    readonly code: 'data-dir' | 'port-in-use' | 'listen-failed' | 'database',
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
  let tokens: TokenStore;
  try {
    tokens = TokenStore.open(dataDir);
  } catch (e) {
    throw new DaemonStartError(
      'data-dir',
      `cannot create the token files in ${dataDir}: ${(e as Error).message}`,
      { cause: e },
    );
  }
  let db: Database;
  const dbFile = join(dataDir, 'companion.db');
  try {
    db = openDb(dbFile, { autoCheckpoint: false });
  } catch (e) {
    tokens.dispose();
    throw new DaemonStartError('database', (e as Error).message, { cause: e });
  }

  // Checkpoints run off the event loop, so no hook reply or ack waits for one.
  const checkpointer = startWalCheckpointer(dbFile, {
    onError: (message) => log.warn('WAL checkpoint failed', { message }),
  });
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
    const relay = new Relay({
      store: eventStore,
      limits: options.relayLimits,
      audit: (row) => audit.append(row),
    });
    const routes = new RouteTable();
    const api = new ApiRouter();

    const onRefusal = (r: RefusalRecord): void => {
      try {
        audit.append({
          actor: r.actor,
          surface: r.upgrade ? 'ws' : 'api',
          action: 'auth.refused',
          session: null,
          commandId: null,
          outcome: 'refused',
          detail: { method: r.method, path: r.path, code: r.code, reason: r.reason },
        });
      } catch (e) {
        log.warn('could not audit a refusal', { error: String(e) });
      }
    };
    server = await startHttpServer({
      host: options.host ?? '127.0.0.1',
      port: options.port,
      routes,
      tokens,
      extraOrigins: options.allowedOrigins,
      tokenlessWatch: () => settings.get('security.tokenlessWatch'),
      onRefusal,
    });
    const url = server.url;
    const port = server.port;
    const lastHook: Partial<Record<VendorId, string>> = {};
    const context: DaemonContext = {
      installerHost: options.installerHost,
      dataDir,
      url,
      port,
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
      reportHook: (vendor, time) => {
        lastHook[vendor] = time ?? new Date().toISOString();
      },
      lastHooks: () => ({ ...lastHook }),
    };

    disposers.push(
      registerRelayRoutes(routes, relay, {
        agent: 'aep-companion',
        instance: `127.0.0.1:${port}/${process.pid}`,
      }),
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
    disposers.push(api.register(settingsApi(context)));
    disposers.push(api.register(auditApi(context)));
    disposers.push(api.register(tokensApi(context, tokens)));
    if (options.consoleDir !== undefined)
      disposers.push(routes.register(staticConsoleRoute(options.consoleDir, () => port)));

    for (const feature of [...(options.baseFeatures ?? FEATURES), ...(options.features ?? [])]) {
      featureDisposers.push(await feature(context));
    }

    let closing: Promise<void> | undefined;
    const close = (): Promise<void> =>
      (closing ??= (async () => {
        // Features go first while the relay still delivers: what they emit on the way out
        // (dropped instructions, ended sessions) reaches the consumers before the closing frames.
        await disposeAll(featureDisposers);
        relay.shutdown('shutting-down');
        await disposeAll(disposers);
        await server!.close();
        eventStore.flush();
        // Let commits scheduled by the last requests settle before the database goes away.
        await new Promise((resolve) => setImmediate(resolve));
        eventStore.flush();
        await checkpointer.stop();
        // The last connection to close checkpoints the rest of the WAL.
        db.close();
        tokens.dispose();
      })());

    log.info('daemon started', { url, dataDir });
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
    await checkpointer.stop();
    db.close();
    tokens.dispose();
    if (e instanceof DaemonStartError) throw e;
    const code = (e as { code?: string }).code;
    if (code === 'port-in-use' || code === 'listen-failed')
      throw new DaemonStartError(code, (e as Error).message, { cause: e });
    throw e;
  }
}
