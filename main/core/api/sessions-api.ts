/** GET /api/sessions: the sessions table as the console lists it, most recent first. */
import type { SessionsRepo } from '../store/sessions-repo';
import type { ApiHandlers } from './index';

/** The sessions route over the sessions repository. */
export function sessionsApi(sessions: SessionsRepo): ApiHandlers {
  return { 'GET /api/sessions': { handle: () => sessions.list() } };
}
