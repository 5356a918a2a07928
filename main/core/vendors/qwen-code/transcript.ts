/**
 * Qwen Code's chat record (`~/.qwen/projects/<project>/chats/<session>.jsonl`, its hooks'
 * `transcript_path`): one JSON object per line. An `assistant` line carries the model's parts (text
 * parts, thoughts left out), the model and `usageMetadata`; a `system` line of subtype
 * `ui_telemetry` whose event is `qwen-code.api_error` is an API error.
 */
import { join } from 'node:path';
import { jsonLine, obj, str, usageFrom, type ParserState, type TranscriptFact, type TranscriptFormat } from '../../transcripts/facts';

/** The text parts of a message, thoughts left out. */
function textParts(parts: unknown): string {
  if (!Array.isArray(parts)) return '';
  const out: string[] = [];
  for (const part of parts) {
    const p = obj(part);
    if (p !== undefined && p['thought'] !== true && typeof p['text'] === 'string') out.push(p['text']);
  }
  return out.join('');
}

/** The facts of one Qwen Code chat line. */
export function parseQwenCodeLine(raw: string, _state: ParserState): readonly TranscriptFact[] {
  const line = jsonLine(raw);
  if (line === null) return [];
  if (line['type'] === 'assistant') {
    const text = textParts(obj(line['message'])?.['parts']);
    const u = obj(line['usageMetadata']);
    const usage = u === undefined ? undefined : usageFrom(u['promptTokenCount'], u['candidatesTokenCount'], u['cachedContentTokenCount']);
    if (text === '' && usage === undefined) return [];
    const model = str(line['model']);
    return [{ kind: 'reply', id: str(line['uuid']) ?? '', text, ...(model === undefined ? {} : { model }), ...(usage === undefined ? {} : { usage }) }];
  }
  if (line['type'] === 'system' && line['subtype'] === 'ui_telemetry') {
    const event = obj(obj(line['systemPayload'])?.['uiEvent']);
    if (event?.['event.name'] !== 'qwen-code.api_error') return [];
    return [{ kind: 'api-error', message: str(event['error']) ?? str(event['error_message']) ?? 'API error' }];
  }
  return [];
}

/** Qwen Code's chat records: under `~/.qwen/projects`. */
export const qwenCodeTranscripts: TranscriptFormat = {
  roots: (home) => [join(home, '.qwen', 'projects')],
  parseLine: parseQwenCodeLine,
};
