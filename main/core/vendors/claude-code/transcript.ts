/**
 * Claude Code's session transcript (`~/.claude/projects/<project>/<session>.jsonl`, named by every
 * hook's `transcript_path`): one JSON object per line. Assistant lines carry the reply text, the
 * model and the usage of one model response (a response split over several lines repeats its id
 * and usage: it is counted once); a user line beginning "[Request interrupted by user" is an
 * interrupt; assistant lines marked `isApiErrorMessage` and `system` lines of subtype `api_error`
 * are API errors; `cost-state` carries the session's cost; `summary`, `custom-title` and
 * `ai-title` name the session. Sidechain (subagent) lines are not the session's own words.
 */
import { join } from 'node:path';
import { firstSight, jsonLine, num, obj, str, usageFrom, type ParserState, type TranscriptFact, type TranscriptFormat } from '../../transcripts/facts';

const INTERRUPT = '[Request interrupted by user';

/** The text blocks of a message's content (a string, or an array of blocks). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const block of content) {
    const b = obj(block);
    if (b?.['type'] === 'text' && typeof b['text'] === 'string') parts.push(b['text']);
  }
  return parts.join('\n');
}

function assistant(line: Record<string, unknown>, state: ParserState): TranscriptFact[] {
  const message = obj(line['message']);
  if (message === undefined) return [];
  const text = textOf(message['content']);
  if (line['isApiErrorMessage'] === true) return [{ kind: 'api-error', message: text || 'API error' }];
  const id = str(message['id']) ?? str(line['uuid']) ?? '';
  const counted = id === '' || firstSight(state, id);
  const u = obj(message['usage']);
  const usage = counted && u !== undefined ? usageFrom(u['input_tokens'], u['output_tokens'], u['cache_read_input_tokens'], u['cache_creation_input_tokens']) : undefined;
  if (text === '' && usage === undefined) return [];
  const model = str(message['model']);
  return [{ kind: 'reply', id, text, ...(model === undefined || model === '<synthetic>' ? {} : { model }), ...(usage === undefined ? {} : { usage }) }];
}

function user(line: Record<string, unknown>): TranscriptFact[] {
  const text = textOf(obj(line['message'])?.['content']);
  return text.trimStart().startsWith(INTERRUPT) ? [{ kind: 'interrupt' }] : [];
}

function system(line: Record<string, unknown>): TranscriptFact[] {
  if (line['subtype'] !== 'api_error') return [];
  const error = obj(line['error']);
  const message = str(error?.['message']) ?? str(obj(error?.['error'])?.['message']) ?? str(line['content']) ?? 'API error';
  return [{ kind: 'api-error', message }];
}

/** The facts of one Claude Code transcript line. */
export function parseClaudeCodeLine(raw: string, state: ParserState): readonly TranscriptFact[] {
  const line = jsonLine(raw);
  if (line === null || line['isSidechain'] === true) return [];
  switch (line['type']) {
    case 'assistant':
      return assistant(line, state);
    case 'user':
      return user(line);
    case 'system':
      return system(line);
    case 'cost-state': {
      const total = num(line['totalCostUSD']);
      return total === undefined ? [] : [{ kind: 'cost', currency: 'USD', total }];
    }
    case 'summary':
    case 'custom-title':
    case 'ai-title': {
      const title = str(line['customTitle']) ?? str(line['aiTitle']) ?? str(line['title']) ?? str(line['summary']);
      return title === undefined ? [] : [{ kind: 'title', title }];
    }
    default:
      return [];
  }
}

/** Claude Code's transcripts: under `~/.claude/projects` (or `$CLAUDE_CONFIG_DIR/projects`). */
export const claudeCodeTranscripts: TranscriptFormat = {
  roots: (home, vars) => {
    const dir = vars['CLAUDE_CONFIG_DIR'];
    return dir !== undefined && dir !== '' ? [join(home, '.claude', 'projects'), join(dir, 'projects')] : [join(home, '.claude', 'projects')];
  },
  parseLine: parseClaudeCodeLine,
};
