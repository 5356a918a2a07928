/** GET /api/instructions[?session=ID]: every instruction's fate (queued, delivered at which moment, dropped why). */
import type { ApiRequest } from '../../../common/api';
import { err, ok, type Result } from '../../../common/result';
import type { SteeringRepo } from '../store/steering-repo';
import type { ApiHandlers } from '../api/index';

/** Validates the query: an optional non-empty `session`. */
export function parseInstructionsQuery(raw: unknown): Result<ApiRequest<'GET /api/instructions'>> {
  const query = (typeof raw === 'object' && raw !== null ? raw : {}) as Record<string, unknown>;
  if (query.session === undefined) return ok({});
  if (typeof query.session !== 'string' || query.session === '') return err('bad-request', "'session' must be a non-empty string");
  return ok({ session: query.session });
}

/** The instructions route over the steering repository. */
export function instructionsApi(repo: SteeringRepo): ApiHandlers {
  return {
    'GET /api/instructions': {
      parse: parseInstructionsQuery,
      handle: (input) => repo.list(input.session === undefined ? {} : { session: input.session }),
    },
  };
}
