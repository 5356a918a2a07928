/**
 * A stub of the OpenAI-compatible chat completions API as the Cline CLI uses it (`cline auth -p
 * openai-compatible -b <stub>/v1`, see test/fixtures/cline/evidence/model-request-*.json):
 * `POST /v1/chat/completions`, streamed. Shell turns call Cline's `run_commands {"commands":[…]}`
 * tool; the turn is picked by the number of tool results in the conversation (turns.ts).
 */
import type { ServerResponse } from 'node:http';
import { sendJson, startSse, StubServer, writeSse, type RecordedRequest } from './stub-server';
import { pickTurn, type Turn } from './turns';

interface ChatBody {
  readonly model?: string;
  readonly stream?: boolean;
  readonly messages?: ReadonlyArray<{ readonly role?: string }>;
}

/** Counts `tool` role messages in the conversation. */
export function clineToolResults(req: RecordedRequest): number {
  const body = req.body as ChatBody | undefined;
  return (body?.messages ?? []).filter((m) => m?.role === 'tool').length;
}

/** Whether a request is one of Cline's chat completion calls. */
export const isClineChat = (req: RecordedRequest): boolean =>
  req.method === 'POST' && req.path.startsWith('/v1/chat/completions');

const USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

/** Starts the stub following `turns`. */
export async function startClineStub(turns: readonly Turn[]): Promise<StubServer> {
  let responses = 0;
  const handler = (req: RecordedRequest, res: ServerResponse): void => {
    if (req.method === 'GET' && req.path.startsWith('/v1/models')) {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'stub-model', object: 'model', owned_by: 'stub' }],
      });
      return;
    }
    if (!isClineChat(req)) {
      sendJson(res, 404, {
        error: { message: `stub: no ${req.method} ${req.path}`, type: 'not_found' },
      });
      return;
    }
    responses += 1;
    const body = (req.body ?? {}) as ChatBody;
    const turn = pickTurn(turns, clineToolResults(req));
    const id = `chatcmpl_stub_${responses}`;
    const model = body.model ?? 'stub-model';
    const chunk = (delta: unknown, finish: string | null, extra: object = {}) => ({
      id,
      object: 'chat.completion.chunk',
      created: Math.floor(Date.now() / 1000),
      model,
      choices: [{ index: 0, delta, finish_reason: finish }],
      ...extra,
    });
    startSse(res);
    if ('shell' in turn) {
      const call = {
        index: 0,
        id: `call_stub_${clineToolResults(req) + 1}`,
        type: 'function',
        function: { name: 'run_commands', arguments: JSON.stringify({ commands: [turn.shell] }) },
      };
      writeSse(res, chunk({ role: 'assistant', content: null, tool_calls: [call] }, null));
      writeSse(res, chunk({}, 'tool_calls', { usage: USAGE }));
    } else {
      writeSse(res, chunk({ role: 'assistant', content: turn.text }, null));
      writeSse(res, chunk({}, 'stop', { usage: USAGE }));
    }
    writeSse(res, '[DONE]');
    res.end();
  };
  return new StubServer('cline', handler).start();
}
