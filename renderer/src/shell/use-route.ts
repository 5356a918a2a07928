/** Hash routing: the console's views are addressable (#/sessions/<id>, #/inbox, …) without a server. */
import { useEffect, useState } from 'react';

/** A parsed route. */
export type Route =
  | { readonly name: 'sessions' }
  | { readonly name: 'session'; readonly id: string; readonly event?: string }
  | { readonly name: 'stream' }
  | { readonly name: 'search'; readonly q: string }
  | { readonly name: 'inbox' }
  | { readonly name: 'audit' }
  | { readonly name: 'settings' }
  | { readonly name: 'setup' }
  | { readonly name: 'quick-instruct'; readonly session: string | null };

/** Parses a location hash. Unknown routes fall back to the sessions list. */
export function parseRoute(hash: string): Route {
  const [path, query = ''] = hash.replace(/^#/, '').split('?');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  switch (parts[0]) {
    case 'sessions':
      if (!parts[1]) return { name: 'sessions' };
      return new URLSearchParams(query).get('event') ? { name: 'session', id: parts[1], event: new URLSearchParams(query).get('event')! } : { name: 'session', id: parts[1] };
    case 'stream':
      return { name: 'stream' };
    case 'search':
      return { name: 'search', q: new URLSearchParams(query).get('q') ?? '' };
    case 'inbox':
      return { name: 'inbox' };
    case 'audit':
      return { name: 'audit' };
    case 'settings':
      return { name: 'settings' };
    case 'setup':
      return { name: 'setup' };
    case 'quick-instruct':
      return { name: 'quick-instruct', session: new URLSearchParams(query).get('session') };
    default:
      return { name: 'sessions' };
  }
}

/** The hash of a route. */
export function routeHash(route: Route): string {
  switch (route.name) {
    case 'session':
      return `#/sessions/${encodeURIComponent(route.id)}${route.event ? `?event=${encodeURIComponent(route.event)}` : ''}`;
    case 'search':
      return route.q ? `#/search?q=${encodeURIComponent(route.q)}` : '#/search';
    case 'quick-instruct':
      return route.session ? `#/quick-instruct?session=${encodeURIComponent(route.session)}` : '#/quick-instruct';
    default:
      return `#/${route.name}`;
  }
}

/** Navigates to a route. */
export function navigate(route: Route): void {
  window.location.hash = routeHash(route);
}

/** The current route, following hash changes. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}
