/**
 * Claude Code's transcript lines as facts, and the facts as AEP events at each capture level: the
 * reply text only at `redacted` (scrubbed) and `full`, structure only at `metadata`, nothing at
 * `none`; every event valid AEP, carried in the session's open run.
 */
import { describe, expect, it } from 'vitest';
import type { Capture } from '../../../common/aep/envelope';
import { redact } from '../../../main/core/aep/redact';
import { validateEvent } from '../../../main/core/aep/validate-event';
import type { MappingContext } from '../../../main/core/vendors/types';
import type { ParserState } from '../../../main/core/transcripts/facts';
import { transcriptEvents } from '../../../main/core/transcripts/transcript-events';
import { parseClaudeCodeLine } from '../../../main/core/vendors/claude-code/transcript';

const SECRET = 'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB';

const line = (v: unknown): string => JSON.stringify(v);
const assistant = (id: string, content: unknown, extra: Record<string, unknown> = {}): string =>
  line({ type: 'assistant', message: { id, role: 'assistant', model: 'claude-opus-5-5', content, usage: { input_tokens: 12, output_tokens: 5, cache_read_input_tokens: 100 } }, ...extra });

const context = (ceiling: Capture): MappingContext => ({
  capture: { default: ceiling, attention: ceiling },
  redact: (t) => redact(t),
  newRunId: () => 'run-x',
  permissionLoop: false,
});

describe("Claude Code's transcript lines", () => {
  it('give the reply text, model and usage once per response, and skip sidechains and other lines', () => {
    const state: ParserState = {};
    expect(parseClaudeCodeLine(assistant('msg_1', [{ type: 'thinking', thinking: 'hmm' }, { type: 'text', text: 'All done.' }]), state)).toEqual([
      { kind: 'reply', id: 'msg_1', text: 'All done.', model: 'claude-opus-5-5', usage: { input: 12, output: 5, cacheRead: 100, cacheWrite: undefined } },
    ]);
    // The same response split over another line: its text counts, its usage does not again.
    expect(parseClaudeCodeLine(assistant('msg_1', [{ type: 'text', text: 'More.' }]), state)).toEqual([{ kind: 'reply', id: 'msg_1', text: 'More.', model: 'claude-opus-5-5' }]);
    expect(parseClaudeCodeLine(assistant('msg_2', [{ type: 'tool_use', id: 't', name: 'Bash', input: {} }]), state)).toEqual([
      { kind: 'reply', id: 'msg_2', text: '', model: 'claude-opus-5-5', usage: { input: 12, output: 5, cacheRead: 100, cacheWrite: undefined } },
    ]);
    expect(parseClaudeCodeLine(assistant('msg_3', 'sub', { isSidechain: true }), state)).toEqual([]);
    expect(parseClaudeCodeLine('{"type":"attachment"}', state)).toEqual([]);
    expect(parseClaudeCodeLine('not json {', state)).toEqual([]);
    expect(parseClaudeCodeLine('[1,2]', state)).toEqual([]);
  });

  it('give interrupts, API errors, cost and titles', () => {
    const state: ParserState = {};
    expect(parseClaudeCodeLine(line({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: '[Request interrupted by user for tool use]' }] } }), state)).toEqual([{ kind: 'interrupt' }]);
    expect(parseClaudeCodeLine(line({ type: 'user', message: { role: 'user', content: 'hello' } }), state)).toEqual([]);
    expect(parseClaudeCodeLine(assistant('e', [{ type: 'text', text: 'API Error: 529 overloaded' }], { isApiErrorMessage: true }), state)).toEqual([{ kind: 'api-error', message: 'API Error: 529 overloaded' }]);
    expect(parseClaudeCodeLine(line({ type: 'system', subtype: 'api_error', error: { message: 'rate limited' } }), state)).toEqual([{ kind: 'api-error', message: 'rate limited' }]);
    expect(parseClaudeCodeLine(line({ type: 'cost-state', totalCostUSD: 0.0123 }), state)).toEqual([{ kind: 'cost', currency: 'USD', total: 0.0123 }]);
    expect(parseClaudeCodeLine(line({ type: 'summary', summary: 'Fix the build' }), state)).toEqual([{ kind: 'title', title: 'Fix the build' }]);
    expect(parseClaudeCodeLine(line({ type: 'custom-title', customTitle: 'Mine' }), state)).toEqual([{ kind: 'title', title: 'Mine' }]);
  });
});

describe('transcript facts as events', () => {
  const facts = [
    { kind: 'reply', id: 'msg_1', text: `Your token is ${SECRET}.`, model: 'claude-opus-5-5', usage: { input: 12, output: 5 } },
    { kind: 'reply', id: 'msg_2', text: '', usage: { output: 7 } },
    { kind: 'interrupt' },
    { kind: 'api-error', message: `bad key ${SECRET}` },
    { kind: 'cost', currency: 'USD', total: 0.5 },
    { kind: 'title', title: 'Fix the build' },
  ] as const;

  const envelope = (e: ReturnType<typeof transcriptEvents>[number], i: number) => ({
    aep: '0.1',
    id: `01J00000000000000000000${String(i).padStart(3, '0')}`,
    time: '2026-12-06T00:00:00Z',
    source: 'aep://localhost/agent/claude-code/session/s',
    agent: 'claude-code',
    session: 's',
    epoch: 1,
    seq: i + 1,
    ...e,
  });

  it('carry the reply text scrubbed at redacted, verbatim at full, and no text at metadata or none; all valid AEP', () => {
    for (const ceiling of ['none', 'metadata', 'redacted', 'full'] as const) {
      const events = transcriptEvents('claude-code', facts, context(ceiling), 'run-1');
      expect(events.map((e) => e.type)).toEqual([
        'x.claude-code.message.replied',
        'x.claude-code.usage.reported',
        'x.claude-code.run.interrupted',
        'error.raised',
        'x.claude-code.usage.reported',
        'x.claude-code.session.titled',
      ]);
      events.forEach((e, i) => {
        const checked = validateEvent(envelope(e, i));
        expect(checked.ok, `${ceiling} ${e.type}: ${checked.ok ? '' : checked.error.message}`).toBe(true);
        expect(e.capture).toBe(ceiling);
      });
      const reply = events[0];
      expect(reply.run).toBe('run-1');
      const text = reply.data?.['text'] as string | undefined;
      const all = JSON.stringify(events);
      if (ceiling === 'none') expect(reply.data).toBeUndefined();
      if (ceiling === 'metadata') {
        expect(text).toBeUndefined();
        expect(reply.data?.['chars']).toBe(facts[0].text.length);
        expect(all).not.toContain('Your token');
        expect(events[5].data).toEqual({});
      }
      if (ceiling === 'redacted') {
        expect(text).toContain('Your token is');
        expect(all).not.toContain(SECRET);
      }
      if (ceiling === 'full') expect(text).toBe(facts[0].text);
      if (ceiling !== 'none') {
        expect(reply.data?.['usage']).toEqual({ 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 5 });
        expect(events[4].data).toEqual({ cost: { currency: 'USD', total: 0.5 } });
      }
    }
  });
});
