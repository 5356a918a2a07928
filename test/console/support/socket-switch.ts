/**
 * A switch on the console's WebSocket, for the disconnect flow: the page's socket is proxied to
 * the real daemon untouched, and `cut()` drops it and refuses reconnects until `restore()`, the
 * way a network loss would. Nothing in the console is told about it.
 */
import type { Page, WebSocketRoute } from 'playwright-core';

/** Controls for the proxied socket. */
export interface SocketSwitch {
  /** Closes the live connections and refuses new ones. */
  cut(): Promise<void>;
  /** Lets the next reconnect through. */
  restore(): void;
  /** Connections the page opened so far. */
  readonly opened: () => number;
}

/** Installs the proxy on a page before it loads the console. */
export async function installSocketSwitch(page: Page): Promise<SocketSwitch> {
  let blocked = false;
  let opened = 0;
  const live = new Set<{ page: WebSocketRoute; server: WebSocketRoute }>();
  await page.routeWebSocket(/\/socket(\?|$)/, (ws) => {
    opened++;
    if (blocked) {
      void ws.close({ code: 4003, reason: 'network down (test)' });
      return;
    }
    const pair = { page: ws, server: ws.connectToServer() };
    live.add(pair);
    ws.onClose(() => live.delete(pair));
  });
  return {
    async cut() {
      blocked = true;
      for (const pair of [...live]) {
        await pair.server.close({ code: 4003, reason: 'network down (test)' });
        await pair.page.close({ code: 4003, reason: 'network down (test)' });
      }
      live.clear();
    },
    restore() {
      blocked = false;
    },
    opened: () => opened,
  };
}
