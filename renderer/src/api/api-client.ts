/**
 * The typed /api client. Routes, request and response types all come from common/api.ts, so a
 * contract change is a compile error here. GET requests carry their input as query parameters;
 * every other method sends JSON. The operator token travels in the Authorization header only.
 */
import type { ApiError, ApiRequest, ApiResponse, ApiRoute } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';

/** Why an /api call failed: the daemon refused it, or it never reached the daemon. */
export type ApiFailure = 'refused' | 'unauthorized' | 'network';

/** Calls one /api route; expected failures are values. */
export type ApiCall = <R extends ApiRoute>(route: R, req: ApiRequest<R>) => Promise<Result<ApiResponse<R>, ApiFailure>>;

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

/** Builds the client for one daemon origin; `token()` is read per call so rotation applies at once. */
export function createApiClient(baseUrl: string, token: () => string | null): ApiCall {
  return async (route, req) => {
    const { method, path, body } = routeUrl(route, req);
    const headers: Record<string, string> = { Accept: 'application/json' };
    const t = token();
    if (t) headers.Authorization = `Bearer ${t}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(`${baseUrl}${path}`, { method, headers, body, cache: 'no-store' });
    } catch (e) {
      return err('network', e instanceof Error ? e.message : 'the daemon did not answer');
    }
    const text = await response.text();
    let parsed: unknown = null;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      parsed = null;
    }
    if (!response.ok) {
      const failure = parsed as ApiError | null;
      const message = failure?.detail ?? failure?.error ?? `HTTP ${response.status}`;
      return err(response.status === 401 || response.status === 403 ? 'unauthorized' : 'refused', message);
    }
    return ok(parsed as ApiResponse<typeof route>);
  };
}
