/**
 * Request admission (ARCHITECTURE §3): a loopback `Host` (defeats DNS rebinding), a present
 * `Origin` equal to the daemon's own, and the token the route requires. Pure functions over the
 * request headers so the listener and its tests share one rule set.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
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
  readonly cookie?: string;
  readonly 'sec-fetch-site'?: string;
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

/**
 * The browser console's cookie (ARCHITECTURE §3). A browser tab that opened the token link trades
 * the operator token for this HttpOnly, SameSite=Strict cookie, so a second tab or a reload needs
 * no token in any URL. Cookies are per host, not per port: the name carries the daemon's port and
 * the value is an HMAC of the operator token and that port, so a cookie never reveals the token,
 * never serves another daemon on the same host, and dies with a rotation of the operator token.
 * It only ever stands for the operator: the hook token has no cookie.
 */
export function consoleCookieName(port: number): string {
  return `aep-console-${port}`;
}

let lastCookieKey = '';
let lastCookieValue = '';

/** The cookie value of an operator token on a port. */
export function consoleCookieValue(operatorToken: string, port: number): string {
  const key = `${port}:${operatorToken}`;
  if (key !== lastCookieKey) {
    lastCookieValue = createHmac('sha256', operatorToken).update(`aep-console-cookie:${port}`).digest('base64url');
    lastCookieKey = key;
  }
  return lastCookieValue;
}

/** How long a browser keeps the cookie (a rotation of the operator token ends it sooner). */
export const CONSOLE_COOKIE_MAX_AGE_S = 30 * 24 * 3600;

/** The Set-Cookie value that signs a browser in (`operatorToken` null: signs it out). */
export function consoleCookieHeader(operatorToken: string | null, port: number): string {
  const value = operatorToken === null ? '' : consoleCookieValue(operatorToken, port);
  const age = operatorToken === null ? 0 : CONSOLE_COOKIE_MAX_AGE_S;
  return `${consoleCookieName(port)}=${value}; Path=/; Max-Age=${age}; HttpOnly; SameSite=Strict`;
}

/** The value of one cookie in a Cookie header, or null. */
function cookieValue(header: string | undefined, name: string): string | null {
  if (header === undefined) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

/**
 * True when a request carries this daemon's valid console cookie and came from the daemon's own
 * page: SameSite treats every port of 127.0.0.1 as one site, so the cookie counts only beside
 * `Sec-Fetch-Site: same-origin` or an `Origin` that is one of `ownOrigins`.
 */
export function cookieIsOperator(
  headers: AdmissionHeaders,
  port: number,
  operatorToken: string,
  ownOrigins: ReadonlySet<string>,
): boolean {
  if (headers.cookie === undefined) return false;
  const fromOwnPage =
    headers['sec-fetch-site'] === 'same-origin' || (headers.origin !== undefined && ownOrigins.has(headers.origin));
  if (!fromOwnPage) return false;
  const presented = cookieValue(headers.cookie, consoleCookieName(port));
  if (presented === null || presented === '') return false;
  const a = Buffer.from(presented);
  const b = Buffer.from(consoleCookieValue(operatorToken, port));
  return a.length === b.length && timingSafeEqual(a, b);
}
