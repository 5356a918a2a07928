/**
 * What a window may load. The console lives on the daemon's own origin; anything else is never
 * loaded in the app. http(s) links leave for the system browser; every other scheme (file:,
 * javascript:, custom protocols) is dropped.
 */

/** The decision for a navigation or window.open request. */
export type NavigationDecision = 'allow' | 'external' | 'deny';

const parse = (url: string): URL | null => {
  try {
    return new URL(url);
  } catch {
    return null;
  }
};

/** Decides a top-level navigation of an app window whose console is served from `appOrigin`. */
export function decideNavigation(url: string, appOrigin: string): NavigationDecision {
  const target = parse(url);
  if (target === null) return 'deny';
  if (target.origin === appOrigin) return 'allow';
  return isExternalWebUrl(url) ? 'external' : 'deny';
}

/** Decides a `window.open` / target=_blank request: never a new app window. */
export function decideWindowOpen(url: string, appOrigin: string): NavigationDecision {
  const decision = decideNavigation(url, appOrigin);
  return decision === 'external' ? 'external' : 'deny';
}

/** True for an http(s) URL without credentials: the only kind handed to the system browser. */
export function isExternalWebUrl(url: string): boolean {
  const target = parse(url);
  if (target === null) return false;
  if (target.protocol !== 'http:' && target.protocol !== 'https:') return false;
  // user:pass@ URLs are a phishing shape; the console never produces them.
  return target.username === '' && target.password === '';
}

/** A renderer route (`#/inbox`, `#/sessions/<id>`, `#/quick-instruct?session=…`), or null when it is not one. */
export function parseRoute(route: unknown): string | null {
  if (typeof route !== 'string' || route.length > 512) return null;
  return /^#\/[A-Za-z0-9\-._~%/?=&]*$/.test(route) ? route : null;
}
