/** GET /api/agents (the catalogue with installed status) and POST /api/agents/fetch (a bridge, now). */
import { isAgentId, type AgentId } from '../../../common/agents';
import { err, ok, type Result } from '../../../common/result';
import type { AgentsHost } from './agents-host';
import { apiError, type ApiHandlers } from '../api/index';

/** Reads `{ agent }` naming a catalogue agent. */
export function parseAgent(raw: unknown): Result<{ agent: AgentId }> {
  const agent = (raw as { agent?: unknown } | null)?.agent;
  if (!isAgentId(agent)) return err('bad-request', `'agent' must be one of claude-code, codex, qwen-code, gemini-cli`);
  return ok({ agent });
}

/** The catalogue routes over the host. */
export function agentsApi(host: AgentsHost): ApiHandlers {
  return {
    'GET /api/agents': { handle: () => host.catalogue() },
    'POST /api/agents/fetch': {
      parse: parseAgent,
      handle: async ({ agent }) => {
        const fetched = await host.fetchBridge(agent);
        if (!fetched.ok) return apiError(fetched.error.code === 'bad-request' ? 400 : 502, fetched.error.code, fetched.error.message);
        return fetched.value;
      },
    },
  };
}
