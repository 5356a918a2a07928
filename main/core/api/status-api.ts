/**
 * `GET /api/status`: version, process, URL, counts and hook activity of the running daemon, and
 * the installed HTTP hooks that post to another port (the status bar offers the reinstall).
 */
import { RESTART_SETTINGS, type SettingKey } from '../../../common/settings';
import type { DaemonContext } from '../daemon-context';
import { hookPortMismatches } from '../installer/hook-ports';
import type { ApiHandlers } from './index';

/** The status handler. */
export function statusApi(ctx: DaemonContext): ApiHandlers {
  // Registered at start: what the restart-needing settings were when this daemon started.
  const atStart = new Map(RESTART_SETTINGS.map((k) => [k, JSON.stringify(ctx.settings.get(k))]));
  const restartNeeded = (): SettingKey[] =>
    RESTART_SETTINGS.filter((k) => JSON.stringify(ctx.settings.get(k)) !== atStart.get(k));
  return {
    'GET /api/status': {
      handle: async () => {
        const hookPortMismatch = await hookPortMismatches({
          dataDir: ctx.dataDir,
          daemonUrl: ctx.url,
        }).catch(() => []);
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
          hookPortMismatch,
          restartNeeded: restartNeeded(),
        };
      },
    },
  };
}
