/** GET/PUT /api/steering: the kill switch, flipped by the operator token; every flip is audited with its surface. */
import type { ApiRequest } from '../../../common/api';
import { SURFACES, type Surface } from '../../../common/audit';
import { err, ok, type Result } from '../../../common/result';
import type { KillSwitch } from './kill-switch';
import { apiError, type ApiHandlers } from '../api/index';

/** Validates a PUT /api/steering body. */
export function parseSteeringPut(raw: unknown): Result<ApiRequest<'PUT /api/steering'>> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return err('bad-request', 'the body must be {"enabled": true|false}');
  const body = raw as Record<string, unknown>;
  if (typeof body.enabled !== 'boolean') return err('bad-request', "'enabled' must be true or false");
  if (body.surface !== undefined && !(SURFACES as readonly string[]).includes(body.surface as string)) {
    return err('bad-request', `'surface' must be one of ${SURFACES.join(', ')}`);
  }
  return ok({ enabled: body.enabled, ...(body.surface !== undefined ? { surface: body.surface as Surface } : {}) });
}

/** The steering routes over one kill switch. */
export function steeringApi(killSwitch: KillSwitch): ApiHandlers {
  return {
    'GET /api/steering': { handle: () => killSwitch.state() },
    'PUT /api/steering': {
      parse: parseSteeringPut,
      handle: (input) => {
        const result = killSwitch.set(input.enabled, { actor: 'operator', surface: input.surface ?? 'api' });
        return result.ok ? result.value : apiError(result.error.code === 'invalid-request' ? 400 : 500, result.error.code, result.error.message);
      },
    },
  };
}
