/**
 * First run: the settings decide. When neither `setup.completedAt` nor `setup.skippedAt` is set the console opens the setup
 * wizard once per window, unless the Electron launch option or a `skipWizard` query flag says to
 * skip it (tests and scripted installs).
 */
import { useEffect, useRef } from 'react';
import type { Route } from '../shell/use-route';
import { useConsole } from '../shell/console-context';

/** True when the page address asks to skip the wizard (`?skipWizard`, `?skipWizard=1`, also inside the hash query). */
export function skipWizardRequested(location: { readonly search: string; readonly hash: string }): boolean {
  const query = new URLSearchParams(location.search);
  const hashQuery = new URLSearchParams(location.hash.split('?')[1] ?? '');
  for (const params of [query, hashQuery]) {
    const value = params.get('skipWizard');
    if (value !== null && value !== '0' && value !== 'false') return true;
  }
  return false;
}

/** Whether the wizard should open: setup never finished nor skipped, nothing asked to skip, not already there. */
export function shouldOpenWizard(completedAt: string | null | undefined, skip: boolean, route: Route, skippedAt?: string | null): boolean {
  if (skip || completedAt || skippedAt) return false;
  return route.name !== 'setup' && route.name !== 'quick-instruct';
}

/** Opens the wizard on first run (checked once per window, after the daemon answered). */
export function useFirstRunRedirect(route: Route): void {
  const { api, connection } = useConsole();
  const checked = useRef(false);
  const routeRef = useRef(route);
  routeRef.current = route;
  useEffect(() => {
    if (checked.current || !connection.signedIn) return;
    checked.current = true;
    // The outcome is left on <html data-first-run> so tests can tell "checked, stayed" from "not yet checked".
    const mark = (outcome: 'skipped' | 'opened' | 'not-needed' | 'unknown') => (document.documentElement.dataset.firstRun = outcome);
    if (connection.skipWizard || skipWizardRequested(window.location)) {
      mark('skipped');
      return;
    }
    void api('GET /api/settings', undefined).then((r) => {
      if (!r.ok) return mark('unknown');
      if (shouldOpenWizard(r.value['setup.completedAt'], false, routeRef.current, r.value['setup.skippedAt'])) {
        window.location.hash = '#/setup';
        mark('opened');
      } else mark('not-needed');
    });
  }, [api, connection]);
}
