/**
 * Signals of a waiting request outside the page itself: the window title counts the open
 * requests (the Electron window's title shows in the task switcher and dock), and in a browser a
 * desktop Notification fires for each new request once the operator allowed it. Electron shows
 * its own native notification from the main process (main/electron/attention-notifier.ts).
 */
import { useEffect } from 'react';
import type { AepEvent } from '../../../common/aep/envelope';
import { attentionItems } from '../model/attention-items';
import type { ConsoleStore } from '../model/console-store';
import { useConsole, useStoreAreas } from './console-context';

const BASE_TITLE = 'AEP Companion';

/** The document title for a number of open requests. */
export function attentionTitle(open: number): string {
  if (open === 0) return BASE_TITLE;
  return `(${open}) ${open === 1 ? 'A request is waiting' : 'Requests are waiting'} · ${BASE_TITLE}`;
}

/** Keeps the window title in step with the open requests. */
export function useAttentionTitle(): void {
  const { store } = useConsole();
  const version = useStoreAreas('fleet');
  useEffect(() => {
    const open = attentionItems(store.fleet, store.bySubject).open.length;
    document.title = attentionTitle(open);
  }, [store, version]);
}

/** True when this browser can show notifications and the operator has not decided yet. */
export function canAskForNotifications(mode: 'electron' | 'browser'): boolean {
  return mode === 'browser' && typeof Notification !== 'undefined' && Notification.permission === 'default';
}

/** A desktop notification for a live request, when the browser allows it. */
export function notifyInBrowser(event: AepEvent, store: ConsoleStore): void {
  if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
  // Replayed history is not news: only requests from the last minute notify.
  if (Date.now() - Date.parse(event.time) > 60_000) return;
  if (typeof document !== 'undefined' && document.visibilityState === 'visible' && document.hasFocus()) return;
  const prompt = typeof event.data?.prompt === 'string' ? event.data.prompt : 'An agent needs your answer';
  const cwd = store.sessions.find((s) => s.session === event.session)?.cwd;
  try {
    const n = new Notification(`${event.agent} is waiting${cwd ? ` · ${cwd.split('/').pop()}` : ''}`, { body: prompt.slice(0, 200), tag: event.id });
    n.onclick = () => {
      window.focus();
      window.location.hash = '#/inbox';
    };
  } catch {
    // Some browsers only allow notifications from a service worker: the title still counts.
  }
}
