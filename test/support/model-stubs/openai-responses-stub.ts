/**
 * A stub of the OpenAI Responses API as Codex CLI uses it with a custom provider
 * (`wire_api = "responses"`): `POST /v1/responses` answered as a server-sent event stream. Shell
 * turns call the `exec_command` tool with `{"cmd": …}`; other paths (model lists and the like) get
 * a harmless answer.
 */
import type { ServerResponse } from 'node:http';
import { sendJson, startSse, StubServer, writeSse, type RecordedRequest } from './stub-server';
import { pickTurn, SHELL_THEN_TEXT, type Turn } from './turns';

interface ResponsesBody {
  readonly model?: string;
  readonly tools?: ReadonlyArray<{ readonly name?: string; readonly type?: string }>;
  readonly input?: ReadonlyArray<{ readonly type?: string }>;
}

/** Whether a recorded request is a Responses call of the agent loop (offers `exec_command`). */
export function isResponsesAgentRequest(req: RecordedRequest): boolean {
  const body = req.body as ResponsesBody | undefined;
  return (
    req.path.startsWith('/v1/responses') && !!body?.tools?.some((t) => t.name === 'exec_command')
  );
}

/** Counts `function_call_output` items in the request input. */
export function responsesToolResults(req: RecordedRequest): number {
  const body = req.body as ResponsesBody | undefined;
  return (body?.input ?? []).filter((item) => item?.type === 'function_call_output').length;
}

/** Starts a Responses API stub that follows `turns`. */
export async function startResponsesStub(
  turns: readonly Turn[] = SHELL_THEN_TEXT,
): Promise<StubServer> {
  let responses = 0;
  const handler = (req: RecordedRequest, res: ServerResponse): void => {
    if (req.method === 'GET' && req.path.startsWith('/v1/models')) {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: 'gpt-stub', object: 'model', owned_by: 'stub' }],
        models: [],
      });
      return;
    }
    if (req.method !== 'POST' || !req.path.startsWith('/v1/responses')) {
      sendJson(res, 404, {
        error: { message: `stub: no ${req.method} ${req.path}`, type: 'not_found' },
      });
      return;
    }
    responses += 1;
    const turn: Turn = isResponsesAgentRequest(req)
      ? pickTurn(turns, responsesToolResults(req))
      : { text: 'ok' };
    streamResponse(
      res,
      `resp_stub_${responses}`,
      (req.body as ResponsesBody | undefined)?.model ?? 'gpt-stub',
      turn,
    );
  };
  return new StubServer('responses', handler).start();
}

function streamResponse(res: ServerResponse, id: string, model: string, turn: Turn): void {
  startSse(res);
  const base = {
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    model,
    status: 'in_progress',
    output: [],
  };
  writeSse(res, { type: 'response.created', response: base }, 'response.created');
  const item =
    'shell' in turn
      ? {
          type: 'function_call',
          id: `fc_${id}`,
          call_id: `call_${id}`,
          name: 'exec_command',
          arguments: JSON.stringify({ cmd: turn.shell }),
          status: 'completed',
        }
      : {
          type: 'message',
          id: `msg_${id}`,
          role: 'assistant',
          status: 'completed',
          content: [{ type: 'output_text', text: turn.text, annotations: [] }],
        };
  writeSse(
    res,
    { type: 'response.output_item.added', output_index: 0, item },
    'response.output_item.added',
  );
  if ('text' in turn) {
    const delta = {
      type: 'response.output_text.delta',
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: turn.text,
    };
    writeSse(res, delta, 'response.output_text.delta');
  }
  writeSse(
    res,
    { type: 'response.output_item.done', output_index: 0, item },
    'response.output_item.done',
  );
  const usage = {
    input_tokens: 12,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: 5,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: 17,
  };
  writeSse(
    res,
    {
      type: 'response.completed',
      response: { ...base, status: 'completed', output: [item], usage },
    },
    'response.completed',
  );
  res.end();
}
