/**
 * Where the daemon is and how this window proves it is the operator. In Electron the preload
 * bridge hands over the origin and the operator token. In a browser the token arrives once in
 * the URL fragment (`#token=…`, printed by `serve`): the page trades it for the daemon's
 * HttpOnly, SameSite=Strict console cookie, drops it from the address bar, and from then on every
 * request, reload and second tab of this daemon's origin authenticates by that cookie. No script
 * keeps the token, and no URL but that first link carries it.
 */
import { BRIDGE_GLOBAL, type CompanionBridge } from '../../../common/bridge';

/** How the console reaches the daemon. */
export interface ConnectionInfo {
  readonly baseUrl: string;
  /** The operator token to send (Electron; a browser only when the daemon set no cookie). */
  readonly token: string | null;
  /** Whether this window can act as the operator (a token, or the daemon's console cookie). */
  readonly signedIn: boolean;
  readonly mode: 'electron' | 'browser';
  readonly skipWizard: boolean;
}

/** The Electron bridge when the preload defined it, otherwise null (browser mode). */
export function bridge(): CompanionBridge | null {
  const candidate = (globalThis as Record<string, unknown>)[BRIDGE_GLOBAL];
  return candidate && typeof candidate === 'object' ? (candidate as CompanionBridge) : null;
}

/** Takes a `token=` member out of the fragment, scrubbing it from the URL; null when there is none. */
export function takeFragmentToken(location: Location, history: History): string | null {
  const fragment = location.hash.replace(/^#/, '');
  const params = new URLSearchParams(fragment.startsWith('/') ? '' : fragment);
  const token = params.get('token');
  if (!token) return null;
  // Replace, not push: the tokened URL must not stay reachable with the Back button.
  history.replaceState(null, '', `${location.pathname}${location.search}#/sessions`);
  return token;
}

/** Asks the daemon for the console cookie with `token`; true when it was set. */
export async function requestCookie(baseUrl: string, token: string): Promise<boolean> {
  try {
    const r = await fetch(`${baseUrl}/api/auth/cookie`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
      body: '{}',
      cache: 'no-store',
    });
    return r.ok;
  } catch {
    return false;
  }
}

/** Whether the daemon takes this browser's cookie as the operator. */
async function cookieSignedIn(baseUrl: string): Promise<boolean> {
  try {
    return (await fetch(`${baseUrl}/api/status`, { cache: 'no-store' })).ok;
  } catch {
    return false;
  }
}

/** Resolves the daemon origin and credentials for this window. */
export async function resolveConnection(): Promise<ConnectionInfo> {
  const b = bridge();
  if (b) {
    const info = await b['bootstrap:get']();
    return { baseUrl: info.baseUrl.replace(/\/$/, ''), token: info.operatorToken, signedIn: info.operatorToken !== '', mode: 'electron', skipWizard: info.skipWizard };
  }
  const baseUrl = window.location.origin;
  const linked = takeFragmentToken(window.location, window.history);
  // The cookie set, the token is dropped; if the daemon could not set it, this tab keeps the token.
  if (linked !== null && !(await requestCookie(baseUrl, linked))) {
    return { baseUrl, token: linked, signedIn: true, mode: 'browser', skipWizard: false };
  }
  return { baseUrl, token: null, signedIn: linked !== null || (await cookieSignedIn(baseUrl)), mode: 'browser', skipWizard: false };
}
