/**
 * The route table features register into. A path is exact (`/events`), a prefix (`/api/*`) or a
 * pattern with `:name` segments (`/hooks/:vendor`). Exact routes win over patterns, patterns over
 * prefixes, longer prefixes over shorter ones.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';

/**
 * Who may call a route: `none` (anyone), `hook` (hook or operator token), `operator` (operator
 * token), `watch` (operator token, or no token when tokenless watch is on), `any` (any token, or
 * no token when tokenless watch is on).
 */
export type RouteAuth = 'none' | 'hook' | 'operator' | 'watch' | 'any';

/** The authenticated party of a request. */
export type Principal = 'operator' | 'hook' | 'anonymous';

/** What a handler learns about its request beyond `req`. */
export interface RequestContext {
  readonly url: URL;
  readonly principal: Principal;
  readonly params: Readonly<Record<string, string>>;
}

/** An HTTP route. */
export interface HttpRoute {
  readonly method: string;
  readonly path: string;
  readonly auth: RouteAuth;
  /**
   * Whether the token may ride in the `access_token` query parameter (only streams a browser opens
   * with `EventSource`, which cannot set headers; WS upgrades always may). Default: header only.
   */
  readonly queryToken?: boolean;
  readonly handler: (
    req: IncomingMessage,
    res: ServerResponse,
    ctx: RequestContext,
  ) => void | Promise<void>;
  readonly upgrade?: undefined;
  readonly refuse?: undefined;
}

/** A WebSocket (HTTP upgrade) route. */
export interface UpgradeRoute {
  readonly method: 'GET';
  readonly path: string;
  readonly auth: RouteAuth;
  readonly upgrade: (
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    ctx: RequestContext,
  ) => void;
  /** Answers a token refusal in the binding's own terms (a WS error frame); default: an HTTP error. */
  readonly refuse?: (
    req: IncomingMessage,
    socket: Duplex,
    head: Buffer,
    refusal: { code: string; message: string },
  ) => void;
  readonly handler?: undefined;
  /** Upgrades always accept `access_token` (browsers cannot set headers on a WebSocket). */
  readonly queryToken?: undefined;
}

/** One entry of the route table. */
export type Route = HttpRoute | UpgradeRoute;

/** Removes what was registered. */
export type Disposer = () => void | Promise<void>;

/** A matched route with its path parameters. */
export interface RouteMatch {
  readonly route: Route;
  readonly params: Record<string, string>;
}

/** The result of looking a request up. */
export type Lookup =
  | { kind: 'match'; match: RouteMatch }
  | { kind: 'method-not-allowed'; allow: string[] }
  | { kind: 'not-found' };

/** A route's path, taken apart once at registration. */
type Matcher =
  | { readonly kind: 'exact'; readonly path: string }
  | { readonly kind: 'prefix'; readonly base: string; readonly slash: string }
  | { readonly kind: 'pattern'; readonly segments: readonly string[] };

function matcherOf(pattern: string): Matcher {
  if (pattern.endsWith('/*')) {
    const base = pattern.slice(0, -2);
    return { kind: 'prefix', base, slash: `${base}/` };
  }
  if (!pattern.includes('/:')) return { kind: 'exact', path: pattern };
  return { kind: 'pattern', segments: pattern.split('/') };
}

function matchPath(m: Matcher, path: string, segments: () => readonly string[]): Record<string, string> | null {
  if (m.kind === 'prefix') return path === m.base || path.startsWith(m.slash) ? {} : null;
  if (m.kind === 'exact') return m.path === path ? {} : null;
  const want = m.segments;
  const got = segments();
  if (want.length !== got.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(':')) {
      if (got[i] === '') return null;
      try {
        params[want[i].slice(1)] = decodeURIComponent(got[i]);
      } catch {
        return null;
      }
    } else if (want[i] !== got[i]) return null;
  }
  return params;
}

function specificity(path: string): number {
  if (path.endsWith('/*')) return path.length;
  if (path.includes('/:')) return 100_000 + path.length;
  return 1_000_000;
}

/** Matches remembered per table (method, path, upgrade): a hook path is looked up once, not per call. */
const MAX_REMEMBERED_MATCHES = 256;

/** The mutable set of routes of one listener. */
export class RouteTable {
  private routes: { readonly route: Route; readonly matcher: Matcher }[] = [];
  /** Recent matches, let go whenever the routes change (only matches: a miss is not kept). */
  private readonly matches = new Map<string, Lookup>();

  /** Adds a route; the returned disposer removes it. */
  register(route: Route): Disposer {
    this.routes.push({ route, matcher: matcherOf(route.path) });
    this.routes.sort((a, b) => specificity(b.route.path) - specificity(a.route.path));
    this.matches.clear();
    return () => {
      this.routes = this.routes.filter((r) => r.route !== route);
      this.matches.clear();
    };
  }

  /** Finds the route for a request (upgrade requests only match upgrade routes and vice versa). */
  lookup(method: string, path: string, upgrade: boolean): Lookup {
    const key = `${upgrade ? 'U' : 'R'}${method} ${path}`;
    const known = this.matches.get(key);
    if (known !== undefined) return known;
    const found = this.find(method, path, upgrade);
    if (found.kind === 'match') {
      if (this.matches.size >= MAX_REMEMBERED_MATCHES) this.matches.clear();
      Object.freeze(found.match.params);
      this.matches.set(key, found);
    }
    return found;
  }

  private find(method: string, path: string, upgrade: boolean): Lookup {
    let allow: Set<string> | undefined;
    let split: readonly string[] | undefined;
    const segments = (): readonly string[] => (split ??= path.split('/'));
    for (const { route, matcher } of this.routes) {
      if ((route.upgrade !== undefined) !== upgrade) continue;
      const params = matchPath(matcher, path, segments);
      if (!params) continue;
      if (route.method === method || (method === 'HEAD' && route.method === 'GET'))
        return { kind: 'match', match: { route, params } };
      (allow ??= new Set<string>()).add(route.method);
    }
    return allow !== undefined
      ? { kind: 'method-not-allowed', allow: [...allow] }
      : { kind: 'not-found' };
  }
}
