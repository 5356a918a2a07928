/**
 * Codex's rollout and Qwen Code's chat record as facts, from lines shaped as the installed CLIs
 * (codex 0.171, qwen-code 0.24) write them; and the roots each vendor's transcripts may live under.
 */
import { describe, expect, it } from 'vitest';
import { transcriptFormat } from '../../../main/core/transcripts/transcript-feed';
import type { ParserState } from '../../../main/core/transcripts/facts';
import { parseCodexLine } from '../../../main/core/vendors/codex/transcript';
import { parseQwenCodeLine } from '../../../main/core/vendors/qwen-code/transcript';

const line = (v: unknown): string => JSON.stringify(v);

describe("Codex's rollout", () => {
  it('gives the reply once (not its event copy), per-response usage with the model, interrupts and errors', () => {
    const state: ParserState = {};
    const facts = [
      line({ type: 'session_meta', payload: { id: 't1', cwd: '/w' } }),
      line({ type: 'turn_context', payload: { turn_id: 'u1', model: 'gpt-6' } }),
      line({ type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Say hi' }] } }),
      line({ type: 'response_item', payload: { type: 'function_call', name: 'exec_command', arguments: '{"cmd":"echo hi"}', call_id: 'c1' } }),
      line({ type: 'token_usage_record', payload: { response_id: 'resp_1', usage: { input_tokens: 12, cached_input_tokens: 0, output_tokens: 5 } } }),
      line({ type: 'token_usage_record', payload: { response_id: 'resp_1', usage: { input_tokens: 12, output_tokens: 5 } } }),
      line({ type: 'event_msg', payload: { type: 'item_completed', item: { type: 'AgentMessage', id: 'm2', content: [{ type: 'Text', text: 'All done.' }] } } }),
      line({ type: 'response_item', payload: { type: 'message', role: 'assistant', id: 'm2', content: [{ type: 'output_text', text: 'All done.', annotations: [] }] } }),
      line({ type: 'event_msg', payload: { type: 'turn_aborted', reason: 'interrupted' } }),
      line({ type: 'event_msg', payload: { type: 'error', message: 'stream disconnected' } }),
      'garbage',
    ].flatMap((l) => parseCodexLine(l, state));
    expect(facts).toEqual([
      { kind: 'reply', id: 'resp_1', text: '', usage: { input: 12, output: 5, cacheRead: 0, cacheWrite: undefined }, model: 'gpt-6' },
      { kind: 'reply', id: 'm2', text: 'All done.', model: 'gpt-6' },
      { kind: 'interrupt' },
      { kind: 'api-error', message: 'stream disconnected' },
    ]);
  });
});

describe("Qwen Code's chat record", () => {
  it('gives text replies without thoughts, usage and model, and API errors from its telemetry lines', () => {
    const state: ParserState = {};
    const facts = [
      line({ uuid: 'u1', type: 'user', message: { role: 'user', parts: [{ text: 'Say hi' }] } }),
      line({ uuid: 'a1', type: 'assistant', model: 'qwen3-coder', message: { role: 'model', parts: [{ functionCall: { name: 'run_shell_command', args: {} } }] }, usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 5 } }),
      line({ uuid: 'a2', type: 'assistant', model: 'qwen3-coder', message: { role: 'model', parts: [{ text: 'thinking…', thought: true }, { text: 'All done.' }] }, usageMetadata: { promptTokenCount: 20, candidatesTokenCount: 3 } }),
      line({ type: 'system', subtype: 'ui_telemetry', systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_response', model: 'qwen3-coder' } } }),
      line({ type: 'system', subtype: 'ui_telemetry', systemPayload: { uiEvent: { 'event.name': 'qwen-code.api_error', error: '429 rate limited' } } }),
    ].flatMap((l) => parseQwenCodeLine(l, state));
    expect(facts).toEqual([
      { kind: 'reply', id: 'a1', text: '', model: 'qwen3-coder', usage: { input: 12, output: 5, cacheRead: undefined, cacheWrite: undefined } },
      { kind: 'reply', id: 'a2', text: 'All done.', model: 'qwen3-coder', usage: { input: 20, output: 3, cacheRead: undefined, cacheWrite: undefined } },
      { kind: 'api-error', message: '429 rate limited' },
    ]);
  });
});

describe('transcript roots', () => {
  it("are the vendors' own session directories, or the config-dir variable's", () => {
    expect(transcriptFormat('claude-code')?.roots('/home/u', {})).toEqual(['/home/u/.claude/projects']);
    expect(transcriptFormat('claude-code')?.roots('/home/u', { CLAUDE_CONFIG_DIR: '/cfg/claude' })).toEqual(['/home/u/.claude/projects', '/cfg/claude/projects']);
    expect(transcriptFormat('codex')?.roots('/home/u', { CODEX_HOME: '/cfg/codex' })).toEqual(['/home/u/.codex/sessions', '/cfg/codex/sessions']);
    expect(transcriptFormat('qwen-code')?.roots('/home/u', {})).toEqual(['/home/u/.qwen/projects']);
    expect(transcriptFormat('hermes')).toBeUndefined();
  });
});
