/**
 * Mid-turn steering routes: the toggle (GET/PUT /api/mid-turn-steering), the pending list of a
 * session (GET /api/pending, POST /api/pending/edit|reorder|withdraw|resume: launched inputs and
 * hook-path instructions alike) and a launched session's message history (GET /api/inputs).
 */
import type { ApiRequest } from '../../../../common/api';
import { SURFACES, type Surface } from '../../../../common/audit';
import { err, ok, type Result } from '../../../../common/result';
import type { PendingError, SteeringService } from './steering-service';
import { apiError, type ApiHandlers, type ApiReply } from '../../api/index';

const STATUS: Readonly<Record<PendingError, number>> = {
  'not-found': 404,
  'not-queued': 409,
  'invalid-request': 400,
};
const fail = (e: { code: PendingError; message: string }): ApiReply =>
  apiError(STATUS[e.code], e.code, e.message);

const obj = (raw: unknown): Record<string, unknown> | null =>
  typeof raw === 'object' && raw !== null && !Array.isArray(raw)
    ? (raw as Record<string, unknown>)
    : null;

const session = (body: Record<string, unknown>): Result<string> =>
  typeof body['session'] === 'string' && body['session'] !== ''
    ? ok(body['session'])
    : err('bad-request', "'session' must be a session id");

const commandId = (body: Record<string, unknown>): Result<string> =>
  typeof body['commandId'] === 'string' && body['commandId'] !== ''
    ? ok(body['commandId'])
    : err('bad-request', "'commandId' must be a command id");

function parseSession(raw: unknown): Result<{ session: string }> {
  const body = obj(raw);
  if (!body) return err('bad-request', 'expected { session }');
  const s = session(body);
  return s.ok ? ok({ session: s.value }) : s;
}

export function parseMidTurnPut(raw: unknown): Result<ApiRequest<'PUT /api/mid-turn-steering'>> {
  const body = obj(raw);
  if (!body || typeof body['enabled'] !== 'boolean')
    return err('bad-request', 'the body must be {"enabled": true|false}');
  if (
    body['surface'] !== undefined &&
    !(SURFACES as readonly string[]).includes(body['surface'] as string)
  ) {
    return err('bad-request', `'surface' must be one of ${SURFACES.join(', ')}`);
  }
  return ok({
    enabled: body['enabled'],
    ...(body['surface'] !== undefined ? { surface: body['surface'] as Surface } : {}),
  });
}

function parseEdit(raw: unknown): Result<ApiRequest<'POST /api/pending/edit'>> {
  const body = obj(raw);
  if (!body) return err('bad-request', 'expected { session, commandId, text }');
  const s = session(body);
  const c = commandId(body);
  if (!s.ok) return s;
  if (!c.ok) return c;
  if (typeof body['text'] !== 'string' || body['text'].trim() === '')
    return err('bad-request', "'text' must be a non-empty string");
  return ok({ session: s.value, commandId: c.value, text: body['text'] });
}

function parseReorder(raw: unknown): Result<ApiRequest<'POST /api/pending/reorder'>> {
  const body = obj(raw);
  if (!body) return err('bad-request', 'expected { session, order }');
  const s = session(body);
  if (!s.ok) return s;
  const order = body['order'];
  if (!Array.isArray(order) || order.some((id) => typeof id !== 'string'))
    return err('bad-request', "'order' must be an array of command ids");
  return ok({ session: s.value, order: order as string[] });
}

function parseWithdraw(raw: unknown): Result<ApiRequest<'POST /api/pending/withdraw'>> {
  const body = obj(raw);
  if (!body) return err('bad-request', 'expected { session, commandId }');
  const s = session(body);
  const c = commandId(body);
  if (!s.ok) return s;
  return c.ok ? ok({ session: s.value, commandId: c.value }) : c;
}

function parseInputs(raw: unknown): Result<ApiRequest<'GET /api/inputs'>> {
  const s = parseSession(raw);
  if (!s.ok) return s;
  const limit = obj(raw)?.['limit'];
  if (limit === undefined) return s;
  const n = Number(limit);
  return Number.isInteger(n) && n >= 1 && n <= 1000
    ? ok({ ...s.value, limit: n })
    : err('bad-request', "'limit' must be an integer from 1 to 1000");
}

/** The routes over the steering service. */
export function steerApi(service: SteeringService): ApiHandlers {
  const by = { actor: 'operator', surface: 'api' } as const;
  return {
    'GET /api/mid-turn-steering': { handle: () => service.toggle.state() },
    'PUT /api/mid-turn-steering': {
      parse: parseMidTurnPut,
      handle: (input) => {
        const set = service.toggle.set(input.enabled, {
          actor: 'operator',
          surface: input.surface ?? 'api',
        });
        return set.ok
          ? set.value
          : apiError(
              set.error.code === 'invalid-request' ? 400 : 500,
              set.error.code,
              set.error.message,
            );
      },
    },
    'GET /api/pending': { parse: parseSession, handle: (input) => service.pending(input.session) },
    'POST /api/pending/edit': {
      parse: parseEdit,
      handle: (input) => {
        const edited = service.edit(input.session, input.commandId, input.text, by);
        return edited.ok ? edited.value : fail(edited.error);
      },
    },
    'POST /api/pending/reorder': {
      parse: parseReorder,
      handle: (input) => {
        const moved = service.reorder(input.session, input.order, by);
        return moved.ok ? moved.value : fail(moved.error);
      },
    },
    'POST /api/pending/withdraw': {
      parse: parseWithdraw,
      handle: async (input) => {
        const withdrawn = await service.withdraw(input.session, input.commandId, by);
        return withdrawn.ok ? withdrawn.value : fail(withdrawn.error);
      },
    },
    'POST /api/pending/resume': {
      parse: parseSession,
      handle: (input) => {
        const resumed = service.resume(input.session, by);
        return resumed.ok ? resumed.value : fail(resumed.error);
      },
    },
    'GET /api/inputs': {
      parse: parseInputs,
      handle: (input) => service.repo.list(input.session, input.limit ?? 200),
    },
  };
}
