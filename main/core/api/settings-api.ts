/**
 * `GET/PATCH /api/settings`. PATCH validates every key (all or nothing) through the settings
 * repository, records the change in the audit trail, and takes effect at once (listeners such as
 * retention react to the change event).
 */
import type { Settings } from '../../../common/settings';
import { err, ok } from '../../../common/result';
import type { DaemonContext } from '../daemon-context';
import { apiError, type ApiHandlers } from './index';

/** The settings handlers. */
export function settingsApi(ctx: DaemonContext): ApiHandlers {
  return {
    'GET /api/settings': { handle: () => ctx.settings.all() },
    'PATCH /api/settings': {
      parse: (raw) =>
        typeof raw === 'object' && raw !== null && !Array.isArray(raw)
          ? ok(raw as Partial<Settings>)
          : err('invalid-setting', 'the body must be a JSON object of setting → value'),
      handle: (patch) => {
        const before = ctx.settings.all();
        const result = ctx.settings.set(patch as Record<string, unknown>);
        if (!result.ok) return apiError(400, result.error.code, result.error.message);
        const changed = Object.keys(patch).filter(
          (k) => before[k as keyof Settings] !== result.value[k as keyof Settings],
        );
        if (changed.length > 0) {
          ctx.audit.append({
            actor: 'operator',
            surface: 'api',
            action: 'settings.changed',
            session: null,
            commandId: null,
            outcome: 'ok',
            detail: Object.fromEntries(
              changed.map((k) => [
                k,
                { from: before[k as keyof Settings], to: result.value[k as keyof Settings] },
              ]),
            ),
          });
        }
        return result.value;
      },
    },
  };
}
