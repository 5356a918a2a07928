/**
 * A stub of the OpenAI chat completions API as Qwen Code uses it (`OPENAI_BASE_URL`):
 * `POST /v1/chat/completions`, streaming chunks (or one JSON completion when not streaming).
 * Shell turns call the `run_shell_command` tool; requests without that tool (side calls such as
 * next-speaker checks) get a short text answer.
 */
import type { ServerResponse } from 'node:http';
import { sendJson, startSse, StubServer, writeSse, type RecordedRequest } from './stub-server';
import { pickTurn, SHELL_THEN_TEXT, type Turn } from './turns';

interface ChatBody {
  readonly model?: string;
  readonly stream?: boolean;
  readonly tools?: ReadonlyArray<{ readonly function?: { readonly name?: string } }>;
  readonly messages?: ReadonlyArray<{ readonly role?: string }>;
}

/** Whether a recorded request is a chat call of the agent loop (offers `run_shell_command`). */
export function isChatAgentRequest(req: RecordedRequest): boolean {
  const body = req.body as ChatBody | undefined;
  return (
    req.path.startsWith('/v1/chat/completions') &&
    !!body?.tools?.some((t) => t.function?.name === 'run_shell_command')
  );
}

/** Counts `tool` role messages in the conversation. */
export function chatToolResults(req: RecordedRequest): number {
  const body = req.body as ChatBody | undefined;
  return (body?.messages ?? []).filter((m) => m?.role === 'tool').length;
}

/** Starts a chat completions stub that follows `turns`. */
export async function startChatStub(turns: readonly Turn[] = SHELL_THEN_TEXT): Promise<StubServer> {
  let responses = 0;
  const handler = (req: RecordedRequest, res: ServerResponse): void => {
    if (req.method === 'GET' && req.path.startsWith('/v1/models')) {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'qwen-stub', object: 'model', owned_by: 'stub' }],
      });
      return;
    }
    if (req.method !== 'POST' || !req.path.startsWith('/v1/chat/completions')) {
      sendJson(res, 404, {
        error: { message: `stub: no ${req.method} ${req.path}`, type: 'not_found' },
      });
      return;
    }
    responses += 1;
    const body = (req.body ?? {}) as ChatBody;
    const turn: Turn = isChatAgentRequest(req)
      ? pickTurn(turns, chatToolResults(req))
      : { text: 'ok' };
    const id = `chatcmpl_stub_${responses}`;
    const model = body.model ?? 'qwen-stub';
    if (body.stream) streamCompletion(res, id, model, turn);
    else sendJson(res, 200, wholeCompletion(id, model, turn));
  };
  return new StubServer('chat', handler).start();
}

const USAGE = { prompt_tokens: 12, completion_tokens: 5, total_tokens: 17 };

function toolCall(id: string, turn: { shell: string }) {
  const args = { command: turn.shell, description: 'Run a command', is_background: false };
  return {
    id: `call_${id}`,
    type: 'function',
    function: { name: 'run_shell_command', arguments: JSON.stringify(args) },
  };
}

function wholeCompletion(id: string, model: string, turn: Turn) {
  const message =
    'shell' in turn
      ? { role: 'assistant', content: null, tool_calls: [toolCall(id, turn)] }
      : { role: 'assistant', content: turn.text };
  const finish = 'shell' in turn ? 'tool_calls' : 'stop';
  return {
    id,
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, message, finish_reason: finish }],
    usage: USAGE,
  };
}

function streamCompletion(res: ServerResponse, id: string, model: string, turn: Turn): void {
  startSse(res);
  const chunk = (delta: unknown, finish: string | null, extra: object = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created: Math.floor(Date.now() / 1000),
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  if ('shell' in turn) {
    const call = toolCall(id, turn);
    writeSse(
      res,
      chunk({ role: 'assistant', content: null, tool_calls: [{ index: 0, ...call }] }, null),
    );
    writeSse(res, chunk({}, 'tool_calls', { usage: USAGE }));
  } else {
    writeSse(res, chunk({ role: 'assistant', content: turn.text }, null));
    writeSse(res, chunk({}, 'stop', { usage: USAGE }));
  }
  writeSse(res, '[DONE]');
  res.end();
}
