/**
 * Where the daemon is and which operator token to present. In Electron the preload bridge hands
 * both over; in a browser the token arrives once in the URL fragment (`#token=…`, printed by
 * `serve`), moves to session storage and leaves the address bar so it is never bookmarked,
 * shared in a screenshot or sent in a Referer.
 */
import { BRIDGE_GLOBAL, type CompanionBridge } from '../../../common/bridge';

/** How the console reaches the daemon. */
export interface ConnectionInfo {
  readonly baseUrl: string;
  readonly token: string | null;
  readonly mode: 'electron' | 'browser';
  readonly skipWizard: boolean;
}

const STORAGE_KEY = 'aep-companion.operator-token';

/** The Electron bridge when the preload defined it, otherwise null (browser mode). */
export function bridge(): CompanionBridge | null {
  const candidate = (globalThis as Record<string, unknown>)[BRIDGE_GLOBAL];
  return candidate && typeof candidate === 'object' ? (candidate as CompanionBridge) : null;
}

/** Moves a `token=` member of the fragment into session storage and scrubs it from the URL. */
export function adoptFragmentToken(location: Location, history: History, storage: Storage): string | null {
  const fragment = location.hash.replace(/^#/, '');
  const params = new URLSearchParams(fragment.startsWith('/') ? '' : fragment);
  const token = params.get('token');
  if (token) {
    storage.setItem(STORAGE_KEY, token);
    // Replace, not push: the tokened URL must not stay reachable with the Back button.
    history.replaceState(null, '', `${location.pathname}${location.search}#/sessions`);
    return token;
  }
  return storage.getItem(STORAGE_KEY);
}

/** Remembers a rotated operator token for the rest of this browser session. */
export function storeToken(token: string): void {
  try {
    sessionStorage.setItem(STORAGE_KEY, token);
  } catch {
    // Storage can be disabled; the in-memory token still works until the tab closes.
  }
}

/** Resolves the daemon origin and token for this window. */
export async function resolveConnection(): Promise<ConnectionInfo> {
  const b = bridge();
  if (b) {
    const info = await b['bootstrap:get']();
    return { baseUrl: info.baseUrl.replace(/\/$/, ''), token: info.operatorToken, mode: 'electron', skipWizard: info.skipWizard };
  }
  const token = adoptFragmentToken(window.location, window.history, window.sessionStorage);
  return { baseUrl: window.location.origin, token, mode: 'browser', skipWizard: false };
}
