/**
 * The typed /api client. Routes, request and response types all come from common/api.ts, so a
 * contract change is a compile error here. GET requests carry their input as query parameters;
 * every other method sends JSON. The operator token travels in the Authorization header only.
 *
 * Rotating the operator token through this client never shows the daemon the old token after
 * it was replaced: while the rotation is in flight, new requests wait; the requests already on
 * their way finish first; the new token is adopted before the waiting requests go. A request
 * that still got 401/403 with a token that has since been replaced (a rotation from elsewhere
 * this window adopted meanwhile) is sent once more with the current token instead of failing.
 */
import type { ApiError, ApiRequest, ApiResponse, ApiRoute } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';

/** Why an /api call failed: the daemon refused it, or it never reached the daemon. */
export type ApiFailure = 'refused' | 'unauthorized' | 'network';

/** Calls one /api route; expected failures are values. */
export type ApiCall = <R extends ApiRoute>(route: R, req: ApiRequest<R>) => Promise<Result<ApiResponse<R>, ApiFailure>>;

/** Options of the client. */
export interface ApiClientOptions {
  /**
   * Adopts a rotated operator token (the caller's token source must return it from now on).
   * Called before requests held during the rotation are released.
   */
  readonly adoptOperatorToken?: (token: string) => void;
  /** Longest wait for requests already in flight before a rotation is sent anyway. */
  readonly drainMs?: number;
}

/** Splits 'METHOD /path' and turns a GET request object into a query string. */
export function routeUrl(route: string, req: unknown): { method: string; path: string; body: string | undefined } {
  const space = route.indexOf(' ');
  const method = route.slice(0, space);
  let path = route.slice(space + 1);
  if (method === 'GET' || method === 'DELETE') {
    const params = new URLSearchParams();
    if (req && typeof req === 'object') {
      for (const [key, value] of Object.entries(req as Record<string, unknown>)) {
        if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
      }
    }
    const query = params.toString();
    if (query) path += `?${query}`;
    return { method, path, body: undefined };
  }
  return { method, path, body: JSON.stringify(req ?? {}) };
}

type Answer = { network: false; status: number; parsed: unknown } | { network: true; status: 0; message: string };

const DRAIN_MS = 5_000;
const refusedToken = (a: Answer): boolean => a.status === 401 || a.status === 403;

/** Builds the client for one daemon origin; `token()` is read per request so rotation applies at once. */
export function createApiClient(baseUrl: string, token: () => string | null, options: ApiClientOptions = {}): ApiCall {
  /** Settles when the rotation in flight is over (its token adopted or its failure known). */
  let rotation: Promise<void> | null = null;
  const inFlight = new Set<Promise<Answer>>();

  const send = (method: string, path: string, body: string | undefined, bearer: string | null): Promise<Answer> => {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (bearer) headers.Authorization = `Bearer ${bearer}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const answer = (async (): Promise<Answer> => {
      let response: Response;
      try {
        response = await fetch(`${baseUrl}${path}`, { method, headers, body, cache: 'no-store' });
      } catch (e) {
        return { network: true, status: 0, message: e instanceof Error ? e.message : 'the daemon did not answer' };
      }
      const text = await response.text().catch(() => '');
      let parsed: unknown = null;
      try {
        parsed = text ? JSON.parse(text) : null;
      } catch {
        parsed = null;
      }
      return { network: false, status: response.status, parsed };
    })();
    inFlight.add(answer);
    void answer.finally(() => inFlight.delete(answer));
    return answer;
  };

  /** Sends with the current token, once no rotation holds requests back. */
  const sendNow = async (method: string, path: string, body: string | undefined): Promise<{ answer: Answer; used: string | null }> => {
    while (rotation) await rotation;
    const used = token();
    return { answer: await send(method, path, body, used), used };
  };

  const rotate = async (path: string, body: string | undefined): Promise<Answer> => {
    while (rotation) await rotation;
    let release!: () => void;
    rotation = new Promise((resolve) => (release = resolve));
    try {
      // What is already on its way still carries the old token: let it land first.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => (timer = setTimeout(resolve, options.drainMs ?? DRAIN_MS))),
      ]);
      clearTimeout(timer);
      const answer = await send('POST', path, body, token());
      const next = !answer.network && answer.status === 200 ? (answer.parsed as { token?: unknown } | null)?.token : undefined;
      if (typeof next === 'string') options.adoptOperatorToken?.(next);
      return answer;
    } finally {
      rotation = null;
      release();
    }
  };

  return async (route, req) => {
    const { method, path, body } = routeUrl(route, req);
    let answer: Answer;
    if (route === 'POST /api/tokens/rotate' && (req as { which?: unknown } | null)?.which === 'operator') {
      answer = await rotate(path, body);
    } else {
      const first = await sendNow(method, path, body);
      answer = first.answer;
      // Refused with a token this window has replaced since: once more with the current one.
      if (refusedToken(answer) && token() !== first.used) answer = (await sendNow(method, path, body)).answer;
    }
    if (answer.network) return err('network', answer.message);
    if (answer.status < 200 || answer.status >= 300) {
      const failure = answer.parsed as ApiError | null;
      const message = failure?.detail ?? failure?.error ?? `HTTP ${answer.status}`;
      return err(refusedToken(answer) ? 'unauthorized' : 'refused', message);
    }
    return ok(answer.parsed as ApiResponse<typeof route>);
  };
}
