/**
 * The daemon's one listener: a `node:http` server on loopback that checks Host, Origin and the
 * route's token before any handler runs, answers refusals as JSON (recording each through
 * `onRefusal`), and hands WebSocket upgrades to upgrade routes. node:http owns every connection.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { STATUS_CODES } from 'node:http';
import { createLogger } from '../logger';
import {
  authorize,
  checkOriginAndHost,
  cookieIsOperator,
  presentedToken,
  refusalStatus,
  type RefusalCode,
} from './auth';
import { ok } from '../../../common/result';
import { sendError } from './http-util';
import type { Principal, RequestContext, RouteAuth, RouteTable } from './route-table';
import type { TokenStore } from './tokens';

const log = createLogger('server');

/** One refused request, as handed to the audit trail (never carries the token). */
export interface RefusalRecord {
  readonly method: string;
  readonly path: string;
  readonly code: RefusalCode;
  readonly reason: string;
  readonly upgrade: boolean;
  /** Who asked: 'operator', 'hook', 'anonymous' (no token) or 'invalid-token'. */
  readonly actor: string;
}

/** Options of the listener. */
export interface HttpServerOptions {
  readonly host: string;
  readonly port: number;
  readonly routes: RouteTable;
  readonly tokens: TokenStore;
  /** Origins allowed besides the daemon's own (e.g. the desktop shell's renderer origin). */
  readonly extraOrigins?: readonly string[];
  /** Whether tokenless watch-only observation is on (read per request: the setting is live). */
  readonly tokenlessWatch: () => boolean;
  readonly onRefusal?: (record: RefusalRecord) => void;
  /** A handler threw (answered 500 or cut); the daemon logs and audits it (bounded). */
  readonly onFault?: (request: string, error: unknown) => void;
}

/** A started listener. */
export interface HttpServerHandle {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  /** Stops accepting, then ends idle keep-alive connections; resolves when the listener closed. */
  close(): Promise<void>;
}

/** Error raised when the listener cannot bind. */
export class ListenError extends Error {
  constructor(
    readonly code: 'port-in-use' | 'listen-failed',
    message: string,
  ) {
    super(message);
  }
}

/**
 * A request target no URL parser would change: an absolute path of unreserved characters without
 * dot segments, and a query of characters that need no escaping. Its pathname is the text before
 * `?` as it is, so the URL object is built only when a handler reads it.
 */
const PLAIN_TARGET = /^\/(?!\/)[\w\-.~/]*(?:\?[\w\-.~=&%+*,:;@!$'()/?]*)?$/;
const DOT_SEGMENT = /(?:^|\/)\.\.?(?:\/|\?|$)/;

/** The path of a request and its URL (built on first read for a plain target). */
interface Target {
  readonly path: string;
  readonly url: URL;
  readonly ok: boolean;
}

/** A plain request target: its URL is parsed on first read (a class: no closure per request). */
class PlainTarget implements Target {
  readonly ok = true;
  private parsed: URL | undefined;

  constructor(
    private readonly raw: string,
    readonly path: string,
  ) {}

  get url(): URL {
    return (this.parsed ??= new URL(this.raw, 'http://127.0.0.1'));
  }
}

/** What a handler is given; the URL is the target's, read when the handler reads it. */
class HandlerContext implements RequestContext {
  constructor(
    private readonly target: Target,
    readonly principal: Principal,
    readonly params: Readonly<Record<string, string>>,
  ) {}

  get url(): URL {
    return this.target.url;
  }
}

function targetOf(raw: string): Target {
  if (PLAIN_TARGET.test(raw) && !DOT_SEGMENT.test(raw)) {
    const q = raw.indexOf('?');
    return new PlainTarget(raw, q === -1 ? raw : raw.slice(0, q));
  }
  try {
    const url = new URL(raw, 'http://127.0.0.1');
    return { path: url.pathname, url, ok: true };
  } catch {
    return { path: '/', url: new URL('http://127.0.0.1/'), ok: false };
  }
}

function writeUpgradeError(socket: Duplex, status: number, body: Record<string, unknown>): void {
  const text = JSON.stringify(body);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** Creates and binds the listener. Rejects with `ListenError` when the port cannot be bound. */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  let origins = new Set<string>();
  let ownOrigins = new Set<string>();
  let boundPort = 0;
  const extra = new Set(options.extraOrigins ?? []);

  /** The principal of a request: its token when it presents one, else the console cookie. */
  const principalOf = (
    req: IncomingMessage,
    target: Target,
    auth: RouteAuth,
    allowQuery: boolean,
  ): ReturnType<typeof authorize> => {
    const presented = presentedToken(req, target, allowQuery);
    if (
      presented === null &&
      cookieIsOperator(req.headers, boundPort, options.tokens.get('operator'), ownOrigins)
    )
      return ok('operator');
    return authorize(auth, presented, options.tokens, options.tokenlessWatch());
  };

  const refuse = (
    req: IncomingMessage,
    target: Target,
    code: RefusalCode,
    reason: string,
    upgrade: boolean,
  ): void => {
    const { path } = target;
    const presented = presentedToken(req, target, true);
    const actor =
      presented === null || presented === ''
        ? 'anonymous'
        : (options.tokens.identify(presented) ?? 'invalid-token');
    log.info('request refused', { method: req.method, path, code, actor });
    options.onRefusal?.({ method: req.method ?? 'GET', path, code, reason, upgrade, actor });
  };

  const corsHeaders = (req: IncomingMessage): Record<string, string> => {
    const origin = req.headers.origin;
    if (origin === undefined || !extra.has(origin)) return {};
    return {
      'Access-Control-Allow-Origin': origin,
      'Access-Control-Allow-Headers': 'Authorization, Content-Type, AEP-Version, Last-Event-ID',
      'Access-Control-Allow-Methods': 'GET, POST, PUT, PATCH, DELETE',
      Vary: 'Origin',
    };
  };

  /** Hands a handler failure to `onFault` (the audit trail); a failure to record it is only logged. */
  const recordFault = (request: string, error: unknown): void => {
    try {
      options.onFault?.(request, error);
    } catch (auditError) {
      log.warn('could not record a handler failure', { error: String(auditError) });
    }
  };

  const onRequest = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const target = targetOf(req.url ?? '/');
    const { path, ok: urlOk } = target;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (req.headers.origin !== undefined)
      for (const [k, v] of Object.entries(corsHeaders(req))) res.setHeader(k, v);
    if (!urlOk) return sendError(res, 400, 'bad-request', 'the request target is not a valid URL');
    const admitted = checkOriginAndHost(req, origins);
    if (!admitted.ok) {
      refuse(req, target, admitted.error.code, admitted.error.message, false);
      return sendError(
        res,
        refusalStatus(admitted.error.code),
        admitted.error.code,
        admitted.error.message,
      );
    }
    if (
      req.method === 'OPTIONS' &&
      req.headers.origin !== undefined &&
      extra.has(req.headers.origin)
    ) {
      res.writeHead(204);
      res.end();
      return;
    }
    const found = options.routes.lookup(req.method ?? 'GET', path, false);
    if (found.kind === 'not-found') return sendError(res, 404, 'not-found', `no route for ${path}`);
    if (found.kind === 'method-not-allowed') {
      return sendError(res, 405, 'method-not-allowed', `${req.method} is not allowed on ${path}`, {
        allow: found.allow,
      });
    }
    const { route, params } = found.match;
    const principal = principalOf(req, target, route.auth, route.queryToken === true);
    if (!principal.ok) {
      const message =
        route.queryToken !== true && target.url.searchParams.has('access_token')
          ? 'the access_token query parameter is accepted only on GET /stream and WebSocket upgrades; send Authorization: Bearer <token>'
          : principal.error.message;
      refuse(req, target, principal.error.code, message, false);
      return sendError(res, refusalStatus(principal.error.code), principal.error.code, message);
    }
    const ctx: RequestContext = new HandlerContext(target, principal.value, params);
    try {
      await route.handler!(req, res, ctx);
    } catch (e) {
      log.error('handler failed', {
        method: req.method,
        path,
        error: (e as Error).stack ?? String(e),
      });
      recordFault(`${req.method ?? 'GET'} ${path.slice(0, 200)}`, e);
      if (!res.headersSent)
        sendError(res, 500, 'internal-error', 'the daemon failed to handle this request');
      else res.destroy();
    }
  };

  const onUpgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    socket.on('error', () => socket.destroy());
    const target = targetOf(req.url ?? '/');
    const { url, path, ok: urlOk } = target;
    if (!urlOk) return writeUpgradeError(socket, 400, { error: 'bad-request' });
    const admitted = checkOriginAndHost(req, origins);
    if (!admitted.ok) {
      refuse(req, target, admitted.error.code, admitted.error.message, true);
      return writeUpgradeError(socket, refusalStatus(admitted.error.code), {
        error: admitted.error.code,
        detail: admitted.error.message,
      });
    }
    const found = options.routes.lookup(req.method ?? 'GET', path, true);
    if (found.kind !== 'match')
      return writeUpgradeError(socket, 404, {
        error: 'not-found',
        detail: `no WebSocket endpoint at ${path}`,
      });
    const { route, params } = found.match;
    const principal = principalOf(req, target, route.auth, true);
    if (!principal.ok) {
      refuse(req, target, principal.error.code, principal.error.message, true);
      if (route.refuse)
        return route.refuse(req, socket, head, {
          code: principal.error.code,
          message: principal.error.message,
        });
      return writeUpgradeError(socket, refusalStatus(principal.error.code), {
        error: principal.error.code,
        detail: principal.error.message,
      });
    }
    try {
      route.upgrade!(req, socket, head, { url, principal: principal.value, params });
    } catch (e) {
      log.error('upgrade failed', { path, error: (e as Error).stack ?? String(e) });
      socket.destroy();
    }
  };

  // The guard of every HTTP request: even a failure outside the handler's own try is answered.
  const guarded = (req: IncomingMessage, res: ServerResponse): void => {
    onRequest(req, res).catch((e: unknown) => {
      log.error('request failed', { error: (e as Error).stack ?? String(e) });
      if (!res.headersSent)
        sendError(res, 500, 'internal-error', 'the daemon failed to handle this request');
      else res.destroy();
    });
  };
  const KEEP_ALIVE_MS = 5_000;
  const server = createServer({ keepAliveTimeout: KEEP_ALIVE_MS }, guarded);
  server.on('upgrade', onUpgrade);
  server.on('clientError', (_e, socket) => {
    if (socket.writable) socket.end('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n');
    else socket.destroy();
  });

  await new Promise<void>((resolve, reject) => {
    const onError = (e: NodeJS.ErrnoException): void => {
      server.off('listening', onListening);
      reject(
        e.code === 'EADDRINUSE'
          ? new ListenError('port-in-use', `port ${options.port} is already in use`)
          : new ListenError(
              'listen-failed',
              `cannot listen on ${options.host}:${options.port}: ${e.message}`,
            ),
      );
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen(options.port, options.host);
  });
  server.on('error', (e) => log.error('listener error', { error: e.message }));

  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  boundPort = port;
  ownOrigins = new Set(ownOriginsFor(port));
  origins = new Set([...ownOrigins, ...extra]);
  const url = `http://127.0.0.1:${port}`;

  return {
    server,
    port,
    url,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeIdleConnections();
        // Connections still busy after the drain get cut; the relay has already ended its streams.
        setTimeout(() => server.closeAllConnections(), 2_000).unref();
      }),
  };
}

function ownOriginsFor(port: number): string[] {
  return [`http://127.0.0.1:${port}`, `http://localhost:${port}`, `http://[::1]:${port}`];
}
