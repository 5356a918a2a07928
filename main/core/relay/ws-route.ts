/**
 * The `/socket` upgrade route: hands authenticated upgrades to `WsConnection`. A token refusal is
 * answered in the binding's own terms (handshake, `error` frame `unauthorized`, close) so browser
 * clients, which cannot read a failed upgrade's body, still learn why.
 */
import { WebSocketServer } from 'ws';
import type { UpgradeRoute } from '../server/route-table';
import type { Relay } from './relay';
import { WsConnection, type RelayIdentity } from './ws-connection';

/** The `GET /socket` upgrade route and the ws server behind it. */
export function wsRoute(
  relay: Relay,
  identity: RelayIdentity,
): { route: UpgradeRoute; close: () => void } {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: relay.limits.maxFrameBytes,
    perMessageDeflate: false,
    clientTracking: false,
  });
  const route: UpgradeRoute = {
    method: 'GET',
    path: '/socket',
    auth: 'any',
    upgrade: (req, socket, head, ctx) => {
      if (relay.closing) {
        socket.end(
          'HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 0\r\n\r\n',
        );
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => {
        try {
          new WsConnection(ws, ctx.principal, relay, identity);
        } catch (e) {
          relay.recordFault('ws', 'upgrade', e);
          ws.terminate();
        }
      });
    },
    refuse: (req, socket, head, refusal) => {
      wss.handleUpgrade(req, socket, head, (ws) => {
        ws.send(JSON.stringify({ type: 'error', code: 'unauthorized', detail: refusal.message }));
        ws.close(1008, 'unauthorized');
        setTimeout(() => ws.terminate(), 3_000).unref();
      });
    },
  };
  return { route, close: () => wss.close() };
}
