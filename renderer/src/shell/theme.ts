/** Theme: light, dark, or following the system (the default). Cached locally for the first paint. */
import type { Theme } from '../../../common/settings';

const KEY = 'aep-companion.theme';

/** Applies a theme to the document. */
export function applyTheme(theme: Theme): void {
  const root = document.documentElement;
  if (theme === 'system') root.removeAttribute('data-theme');
  else root.setAttribute('data-theme', theme);
  try {
    localStorage.setItem(KEY, theme);
  } catch {
    // Storage may be unavailable; the setting itself lives in the daemon.
  }
}

/** The last applied theme, for the first paint before settings load. */
export function cachedTheme(): Theme {
  try {
    const t = localStorage.getItem(KEY);
    return t === 'light' || t === 'dark' ? t : 'system';
  } catch {
    return 'system';
  }
}
