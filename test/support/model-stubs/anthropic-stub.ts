/**
 * A stub of the Anthropic Messages API as Claude Code uses it: `POST /v1/messages` (streaming SSE
 * or plain JSON), `POST /v1/messages/count_tokens`, and a harmless answer for anything else. The
 * main agent loop (requests that offer the `Bash` tool) follows the turn script; side requests
 * (titles, quota probes and the like) get a short text answer.
 */
import type { ServerResponse } from 'node:http';
import { sendJson, startSse, StubServer, writeSse, type RecordedRequest } from './stub-server';
import { pickTurn, SHELL_THEN_TEXT, type Turn } from './turns';

interface MessagesBody {
  readonly model?: string;
  readonly stream?: boolean;
  readonly tools?: ReadonlyArray<{ readonly name?: string }>;
  readonly messages?: ReadonlyArray<{ readonly role?: string; readonly content?: unknown }>;
}

/** Whether a recorded request is a Messages call of the agent loop (offers the Bash tool). */
export function isAnthropicAgentRequest(req: RecordedRequest): boolean {
  const body = req.body as MessagesBody | undefined;
  return (
    req.path.startsWith('/v1/messages') &&
    !req.path.includes('count_tokens') &&
    !!body?.tools?.some((t) => t.name === 'Bash')
  );
}

/** Counts `tool_result` blocks in the conversation. */
export function anthropicToolResults(req: RecordedRequest): number {
  const body = req.body as MessagesBody | undefined;
  let count = 0;
  for (const message of body?.messages ?? []) {
    if (Array.isArray(message.content)) {
      for (const block of message.content as Array<{ type?: string }>)
        if (block?.type === 'tool_result') count += 1;
    }
  }
  return count;
}

/** Starts an Anthropic Messages API stub that follows `turns`. */
export async function startAnthropicStub(
  turns: readonly Turn[] = SHELL_THEN_TEXT,
): Promise<StubServer> {
  let responses = 0;
  const handler = (req: RecordedRequest, res: ServerResponse): void => {
    if (req.method === 'POST' && req.path.startsWith('/v1/messages/count_tokens')) {
      sendJson(res, 200, { input_tokens: 42 });
      return;
    }
    if (req.method !== 'POST' || !req.path.startsWith('/v1/messages')) {
      sendJson(res, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: `stub: no ${req.method} ${req.path}` },
      });
      return;
    }
    const body = (req.body ?? {}) as MessagesBody;
    responses += 1;
    const id = `msg_stub_${responses}`;
    const turn: Turn = isAnthropicAgentRequest(req)
      ? pickTurn(turns, anthropicToolResults(req))
      : { text: 'ok' };
    const model = body.model ?? 'claude-stub';
    if (body.stream) streamMessage(res, id, model, turn);
    else sendJson(res, 200, wholeMessage(id, model, turn));
  };
  return new StubServer('anthropic', handler).start();
}

function usage(output: number) {
  return {
    input_tokens: 12,
    output_tokens: output,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
  };
}

function contentOf(id: string, turn: Turn) {
  return 'shell' in turn
    ? {
        type: 'tool_use',
        id: `toolu_${id}`,
        name: 'Bash',
        input: { command: turn.shell, description: 'Run a command' },
      }
    : { type: 'text', text: turn.text };
}

function wholeMessage(id: string, model: string, turn: Turn) {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [contentOf(id, turn)],
    stop_reason: 'shell' in turn ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: usage(5),
  };
}

function streamMessage(res: ServerResponse, id: string, model: string, turn: Turn): void {
  startSse(res);
  const start = {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: [],
    stop_reason: null,
    stop_sequence: null,
    usage: usage(1),
  };
  writeSse(res, { type: 'message_start', message: start }, 'message_start');
  if ('shell' in turn) {
    const block = { type: 'tool_use', id: `toolu_${id}`, name: 'Bash', input: {} };
    writeSse(
      res,
      { type: 'content_block_start', index: 0, content_block: block },
      'content_block_start',
    );
    const partial = JSON.stringify({ command: turn.shell, description: 'Run a command' });
    writeSse(
      res,
      {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'input_json_delta', partial_json: partial },
      },
      'content_block_delta',
    );
  } else {
    writeSse(
      res,
      { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
      'content_block_start',
    );
    writeSse(
      res,
      { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: turn.text } },
      'content_block_delta',
    );
  }
  writeSse(res, { type: 'content_block_stop', index: 0 }, 'content_block_stop');
  const stopReason = 'shell' in turn ? 'tool_use' : 'end_turn';
  writeSse(
    res,
    {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 5 },
    },
    'message_delta',
  );
  writeSse(res, { type: 'message_stop' }, 'message_stop');
  res.end();
}
