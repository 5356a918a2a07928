/**
 * Codex's session rollout (`~/.codex/sessions/YYYY/MM/DD/rollout-….jsonl`, or under `$CODEX_HOME`;
 * its hooks' `transcript_path`): one `{ timestamp, type, payload }` object per line. An assistant
 * `response_item` message is the reply text (the `event_msg` copy of it is not read again);
 * `token_usage_record` is one response's usage; `turn_context` names the model; an `event_msg` of
 * type `turn_aborted` is an interrupt and one of type `error` an API error.
 */
import { join } from 'node:path';
import { firstSight, jsonLine, obj, str, usageFrom, type ParserState, type TranscriptFact, type TranscriptFormat } from '../../transcripts/facts';

/** The output text of an assistant message's content. */
function outputText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    const b = obj(block);
    if ((b?.['type'] === 'output_text' || b?.['type'] === 'text') && typeof b['text'] === 'string') parts.push(b['text']);
  }
  return parts.join('\n');
}

const withModel = (state: ParserState): { model?: string } => (typeof state['model'] === 'string' ? { model: state['model'] } : {});

/** The facts of one Codex rollout line. */
export function parseCodexLine(raw: string, state: ParserState): readonly TranscriptFact[] {
  const line = jsonLine(raw);
  const payload = obj(line?.['payload']);
  if (line === null || payload === undefined) return [];
  switch (line['type']) {
    case 'turn_context': {
      const model = str(payload['model']);
      if (model !== undefined) state['model'] = model;
      return [];
    }
    case 'response_item': {
      if (payload['type'] !== 'message' || payload['role'] !== 'assistant') return [];
      const text = outputText(payload['content']);
      return text === '' ? [] : [{ kind: 'reply', id: str(payload['id']) ?? '', text, ...withModel(state) }];
    }
    case 'token_usage_record': {
      const u = obj(payload['usage']);
      const id = str(payload['response_id']) ?? '';
      if (u === undefined || (id !== '' && !firstSight(state, id))) return [];
      const usage = usageFrom(u['input_tokens'], u['output_tokens'], u['cached_input_tokens'], u['cache_write_input_tokens']);
      return usage === undefined ? [] : [{ kind: 'reply', id, text: '', usage, ...withModel(state) }];
    }
    case 'event_msg':
      if (payload['type'] === 'turn_aborted') return [{ kind: 'interrupt' }];
      if (payload['type'] === 'error') return [{ kind: 'api-error', message: str(payload['message']) ?? 'API error' }];
      if (payload['type'] === 'thread_name_updated') {
        const title = str(payload['thread_name']) ?? str(payload['name']);
        return title === undefined ? [] : [{ kind: 'title', title }];
      }
      return [];
    default:
      return [];
  }
}

/** Codex's rollouts: under `~/.codex/sessions` (or `$CODEX_HOME/sessions`). */
export const codexTranscripts: TranscriptFormat = {
  roots: (home, vars) => {
    const dir = vars['CODEX_HOME'];
    return dir !== undefined && dir !== '' ? [join(home, '.codex', 'sessions'), join(dir, 'sessions')] : [join(home, '.codex', 'sessions')];
  },
  parseLine: parseCodexLine,
};
