/** Registers the relay's bindings into the daemon's route table: ingest, discovery, SSE, WS. */
import type { ServerResponse } from 'node:http';
import { sendJson } from '../server/http-util';
import type { Disposer, RouteTable } from '../server/route-table';
import { postEventsRoute } from './http-ingest';
import type { Relay } from './relay';
import { sseRoute } from './sse-stream';
import type { RelayIdentity } from './ws-connection';
import { wsRoute } from './ws-route';

/** Adds POST/GET /events, GET /.well-known/aep, GET /stream and /socket; the disposer removes them. */
export function registerRelayRoutes(
  routes: RouteTable,
  relay: Relay,
  identity: RelayIdentity,
): Disposer {
  const ws = wsRoute(relay, identity);
  const discovery = {
    auth: 'any' as const,
    handler: (_req: unknown, res: ServerResponse) => sendJson(res, 200, relay.discovery()),
  };
  const disposers = [
    routes.register(postEventsRoute(relay)),
    routes.register({ method: 'GET', path: '/events', ...discovery }),
    routes.register({ method: 'GET', path: '/.well-known/aep', ...discovery }),
    routes.register(sseRoute(relay)),
    routes.register(ws.route),
  ];
  return () => {
    for (const d of disposers) void d();
    ws.close();
  };
}
