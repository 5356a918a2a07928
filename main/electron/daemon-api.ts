/**
 * The few /api calls the shell makes, over the daemon's own listener with the operator token, so
 * a tray action goes through exactly the path (validation, kill switch, audit) a console action
 * takes; only the surface differs. Typed by common/api.ts.
 */
import type { ApiRequest, ApiResponse, ApiRoute } from '../../common/api';
import { err, ok, type Result } from '../../common/result';

/** Where the daemon is and how to authenticate (the token is read at each call: it can rotate). */
export interface DaemonEndpoint {
  readonly url: string;
  readonly operatorToken: () => string;
}

/** Calls one /api route; a refusal or an unreachable daemon is a `Result` error, never a throw. */
export async function callApi<R extends ApiRoute>(endpoint: DaemonEndpoint, route: R, body?: ApiRequest<R>): Promise<Result<ApiResponse<R>, 'unreachable' | 'refused'>> {
  const [method, path] = route.split(' ');
  let res: Response;
  try {
    res = await fetch(`${endpoint.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${endpoint.operatorToken()}`, ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
  } catch (e) {
    return err('unreachable', `${route}: ${(e as Error).message}`);
  }
  const text = await res.text();
  if (!res.ok) {
    let detail = text;
    try {
      const parsed = JSON.parse(text) as { error?: string; detail?: string };
      detail = [parsed.error, parsed.detail].filter(Boolean).join(': ') || text;
    } catch {
      // Not JSON: keep the raw text.
    }
    return err('refused', `${route}: ${res.status} ${detail}`);
  }
  return ok(JSON.parse(text) as ApiResponse<R>);
}

/** Flips the kill switch from the tray (audited with surface 'tray', like the console's flips are with 'console'). */
export function setSteeringFromTray(endpoint: DaemonEndpoint, enabled: boolean): ReturnType<typeof callApi<'PUT /api/steering'>> {
  return callApi(endpoint, 'PUT /api/steering', { enabled, surface: 'tray' });
}
