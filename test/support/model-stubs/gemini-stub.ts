/**
 * A Gemini API stub (`generateContent`, `streamGenerateContent?alt=sse`) for Gemini CLI, reached
 * through GOOGLE_GEMINI_BASE_URL. The agent's streamed requests follow the turn script, chosen by
 * the number of `functionResponse` parts already in the conversation; every other call (the model
 * router, side checks) gets a small JSON text answer.
 */
import type { ServerResponse } from 'node:http';
import { pickTurn, SHELL_THEN_TEXT, type Turn } from './turns';
import { sendJson, startSse, StubServer, writeSse, type RecordedRequest } from './stub-server';

interface Content {
  readonly role?: string;
  readonly parts?: readonly Record<string, unknown>[];
}

/** True for the agent's own streamed conversation requests. */
export const isGeminiAgentRequest = (req: RecordedRequest): boolean => req.method === 'POST' && req.path.includes(':streamGenerateContent');

/** Function results already in the conversation. */
export function geminiToolResults(req: RecordedRequest): number {
  const contents = ((req.body ?? {}) as { contents?: readonly Content[] }).contents ?? [];
  return contents.reduce((n, c) => n + (c.parts ?? []).filter((p) => p['functionResponse'] !== undefined).length, 0);
}

const USAGE = { promptTokenCount: 12, candidatesTokenCount: 5, totalTokenCount: 17 };

function candidate(turn: Turn) {
  const parts = 'shell' in turn ? [{ functionCall: { name: 'run_shell_command', args: { command: turn.shell, description: 'Run a command' } } }] : [{ text: turn.text }];
  return { content: { role: 'model', parts }, finishReason: 'STOP', index: 0 };
}

export async function startGeminiStub(turns: readonly Turn[] = SHELL_THEN_TEXT): Promise<StubServer> {
  const handler = (req: RecordedRequest, res: ServerResponse): void => {
    if (req.method !== 'POST' || !/:(stream)?[gG]enerateContent/.test(req.path)) {
      if (req.path.includes(':countTokens')) return sendJson(res, 200, { totalTokens: 12 });
      return sendJson(res, 404, { error: { code: 404, message: `stub: no ${req.method} ${req.path}`, status: 'NOT_FOUND' } });
    }
    if (isGeminiAgentRequest(req)) {
      startSse(res);
      writeSse(res, { candidates: [candidate(pickTurn(turns, geminiToolResults(req)))], usageMetadata: USAGE, modelVersion: 'stub-model' });
      res.end();
      return;
    }
    sendJson(res, 200, { candidates: [candidate({ text: '{"reasoning":"stub","model_choice":"flash"}' })], usageMetadata: USAGE, modelVersion: 'stub-model' });
  };
  return new StubServer('gemini', handler).start();
}
