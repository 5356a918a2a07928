/**
 * POST /api/launch, GET /api/launched, POST /api/launched/end, POST /api/launched/resume. The agent
 * is named by catalogue id only; `cwd` must be an existing directory (400 otherwise).
 */
import { isAgentId, type LaunchRequest } from '../../../common/agents';
import { err, ok, type Result } from '../../../common/result';
import type { AgentsHost, LaunchError } from './agents-host';
import { apiError, type ApiHandlers, type ApiReply } from '../api/index';

const STATUS: Readonly<Record<LaunchError, number>> = {
  'bad-request': 400,
  'not-installed': 409,
  'fetch-failed': 502,
  'launch-failed': 502,
  'not-found': 404,
  'not-resumable': 409,
};

/** Validates a launch body. */
export function parseLaunch(raw: unknown): Result<LaunchRequest> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) return err('bad-request', 'the body must be an object { agent, cwd, prompt? }');
  const r = raw as Record<string, unknown>;
  if (!isAgentId(r['agent'])) return err('bad-request', `'agent' must be one of claude-code, codex, qwen-code, gemini-cli`);
  if (typeof r['cwd'] !== 'string' || r['cwd'] === '') return err('bad-request', "'cwd' must be a directory path");
  if (r['prompt'] !== undefined && typeof r['prompt'] !== 'string') return err('bad-request', "'prompt' must be a string");
  const extra = Object.keys(r).find((k) => !['agent', 'cwd', 'prompt'].includes(k));
  if (extra !== undefined) return err('bad-request', `unknown field '${extra}' (an agent is named by id; commands come from the catalogue)`);
  return ok({ agent: r['agent'], cwd: r['cwd'], ...(typeof r['prompt'] === 'string' ? { prompt: r['prompt'] } : {}) });
}

function parseSession(raw: unknown): Result<{ session: string }> {
  const session = (raw as { session?: unknown } | null)?.session;
  return typeof session === 'string' && session !== '' ? ok({ session }) : err('bad-request', "'session' must be a session id");
}

const fail = (e: { code: LaunchError | 'not-found'; message: string }): ApiReply => apiError(STATUS[e.code], e.code, e.message);

/** The launch routes over the host. */
export function launchApi(host: AgentsHost): ApiHandlers {
  const by = { actor: 'operator', surface: 'api' } as const;
  return {
    'POST /api/launch': {
      parse: parseLaunch,
      handle: async (req) => {
        const launched = await host.launch(req.agent, req.cwd, req.prompt, by);
        return launched.ok ? launched.value : fail(launched.error);
      },
    },
    'GET /api/launched': { handle: () => host.list() },
    'POST /api/launched/end': {
      parse: parseSession,
      handle: async ({ session }) => {
        const ended = await host.end(session, by);
        return ended.ok ? ended.value : fail(ended.error);
      },
    },
    'POST /api/launched/resume': {
      parse: parseSession,
      handle: async ({ session }) => {
        const resumed = await host.resume(session, by);
        return resumed.ok ? resumed.value : fail(resumed.error);
      },
    },
  };
}
