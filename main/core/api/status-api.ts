/** `GET /api/status`: version, process, URL, counts and hook activity of the running daemon. */
import type { DaemonContext } from '../daemon-context';
import type { ApiHandlers } from './index';

/** The status handler. */
export function statusApi(ctx: DaemonContext): ApiHandlers {
  return {
    'GET /api/status': {
      handle: () => {
        const stored = ctx.eventStore.counts();
        const live = ctx.relay.counts();
        return {
          version: ctx.version,
          pid: process.pid,
          url: ctx.url,
          dataDir: ctx.dataDir,
          startedAt: ctx.startedAt,
          steeringEnabled: ctx.settings.get('features.steering'),
          counts: {
            events: stored.events,
            sessions: stored.sessions,
            connections: live.connections,
            subscribers: live.subscribers,
          },
          lastHook: ctx.lastHooks(),
        };
      },
    },
  };
}
