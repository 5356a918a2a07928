/**
 * Authenticated file downloads: the token must stay in a header, so the file is fetched and
 * handed to the browser as a blob instead of navigating to a tokened URL.
 */
import { err, ok, type Result } from '../../../common/result';
import { routeUrl } from './api-client';

/** Fetches a route's text body and saves it under the server's file name (or `fallbackName`). */
export async function downloadRoute(baseUrl: string, token: string | null, route: string, req: unknown, fallbackName: string): Promise<Result<{ name: string; bytes: number }, 'network' | 'refused'>> {
  const { path } = routeUrl(route, req);
  let response: Response;
  try {
    response = await fetch(`${baseUrl}${path}`, { headers: token ? { Authorization: `Bearer ${token}` } : {}, cache: 'no-store' });
  } catch (e) {
    return err('network', e instanceof Error ? e.message : 'the daemon did not answer');
  }
  if (!response.ok) return err('refused', `HTTP ${response.status}`);
  const blob = await response.blob();
  const disposition = response.headers.get('Content-Disposition') ?? '';
  const name = /filename="([^"]+)"/.exec(disposition)?.[1] ?? fallbackName;
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
  return ok({ name, bytes: blob.size });
}
