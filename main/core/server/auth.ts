/**
 * Request admission (ARCHITECTURE §3): a loopback `Host` (defeats DNS rebinding), a present
 * `Origin` equal to the daemon's own, and the token the route requires. Pure functions over the
 * request headers so the listener and its tests share one rule set.
 */
import { err, ok, type Result } from '../../../common/result';
import type { Principal, RouteAuth } from './route-table';
import type { TokenStore } from './tokens';

const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]', '::1']);

/** Why a request was refused. */
export type RefusalCode = 'bad-host' | 'bad-origin' | 'unauthorized' | 'forbidden';

/** True when the Host header names a loopback host (any port). */
export function isLoopbackHost(host: string | undefined): boolean {
  if (!host) return false;
  // Every request of a client sends the same Host: the last one found loopback is not parsed again.
  if (host === lastLoopbackHost) return true;
  const m = /^(\[[^\]]+\]|[^:]+)(?::(\d+))?$/.exec(host.trim().toLowerCase());
  const loopback = m !== null && LOOPBACK_HOSTS.has(m[1]);
  if (loopback) lastLoopbackHost = host;
  return loopback;
}
let lastLoopbackHost: string | undefined;

/** The headers admission reads. */
export interface AdmissionHeaders {
  readonly host?: string;
  readonly origin?: string;
  readonly authorization?: string;
}

let lastAuthorization: string | undefined;
let lastPresented = '';

/** The token a request presents: `Authorization: Bearer`, else (when allowed) `access_token`. */
export function presentedToken(req: { readonly headers: AdmissionHeaders }, target: { readonly url: URL }, allowQuery: boolean): string | null {
  const header = req.headers.authorization;
  if (typeof header === 'string') {
    // A client sends the same header on every request: the last one is not matched again.
    if (header === lastAuthorization) return lastPresented;
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    lastAuthorization = header;
    lastPresented = m ? m[1] : '';
    return lastPresented;
  }
  if (allowQuery) {
    // The URL is read only here: a target's URL may be built on first read.
    const q = target.url.searchParams.get('access_token');
    if (q !== null) return q;
  }
  return null;
}

/** Host and Origin checks, before any token is looked at. */
export function checkOriginAndHost(
  req: { readonly headers: AdmissionHeaders },
  origins: ReadonlySet<string>,
): Result<void, RefusalCode> {
  if (!isLoopbackHost(req.headers.host))
    return err('bad-host', 'Host must be a loopback name (127.0.0.1, localhost or [::1])');
  const origin = req.headers.origin;
  if (origin !== undefined && !origins.has(origin))
    return err('bad-origin', `Origin ${origin} is not allowed`);
  return ok(undefined);
}

/** Resolves the principal of a request for a route, or a refusal. */
export function authorize(
  auth: RouteAuth,
  presented: string | null,
  tokens: TokenStore,
  tokenlessWatch: boolean,
): Result<Principal, RefusalCode> {
  if (presented === null || presented === '') {
    if (auth === 'none') return ok('anonymous');
    if ((auth === 'watch' || auth === 'any') && tokenlessWatch) return ok('anonymous');
    return err('unauthorized', 'a token is required (Authorization: Bearer <token>)');
  }
  const kind = tokens.identify(presented);
  if (kind === null) {
    if (auth === 'none') return ok('anonymous');
    return err('unauthorized', 'the token is not valid');
  }
  if (kind === 'operator') return ok('operator');
  // The hook token may only ingest.
  if (auth === 'none' || auth === 'hook' || auth === 'any') return ok('hook');
  return err('forbidden', 'the hook token may only ingest events; this needs the operator token');
}

/** The HTTP status of a refusal code. */
export function refusalStatus(code: RefusalCode): 401 | 403 {
  switch (code) {
    case 'bad-host':
    case 'bad-origin':
    case 'forbidden':
      return 403;
    case 'unauthorized':
      return 401;
  }
}
