/**
 * The readable timeline (model): the launch prompt's row carries its text, the agent's replies are
 * rows of text, plumbing is flagged for the details toggle, usage becomes a token count per turn,
 * tool rows are titled by the command without its shell wrapper and open with their output, and
 * session facts give a title (the agent's own, else the first prompt), the model and the cost.
 */
import { describe, expect, test } from 'vitest';
import type { AepEvent } from '../../common/aep/envelope';
import { sessionFacts, formatCost } from '../../renderer/src/model/session-facts';
import { streamState } from '../../renderer/src/model/session-rows';
import { unwrapShell } from '../../renderer/src/model/shell-command';
import { TimelineBuilder } from '../../renderer/src/model/timeline';
import { toolPieces } from '../../renderer/src/model/tool-content';

let n = 0;
function ev(type: string, extra: Partial<AepEvent> = {}): AepEvent {
  n++;
  return { aep: '0.1', id: `e${n}`, type, time: new Date(Date.UTC(2026, 11, 6, 12, 0, n)).toISOString(), source: 'aep://localhost/test', agent: 'codex', session: 's1', seq: n, ...extra };
}

function build(events: AepEvent[]): TimelineBuilder {
  const b = new TimelineBuilder();
  b.update({ events, reorders: 0 });
  return b;
}

describe('the readable timeline', () => {
  test("a launched session's first prompt reads as its text, its input lifecycle is plumbing", () => {
    const b = build([
      ev('session.started'),
      ev('run.started', { cause: 'in-1', data: { prompt: 'Add a dark theme toggle' } }),
      ev('x.codex.input.sent', { cause: 'in-1', data: { delivery: 'queue' } }),
    ]);
    const launch = b.rows.find((r) => r.kind === 'instruction');
    expect(launch?.detail).toBe('Add a dark theme toggle');
    expect(launch?.detail).not.toContain('sent with the launch');
    expect(launch?.plumbing).toBe(true);
    expect(b.rows.find((r) => r.kind === 'prompt')?.detail).toBe('Add a dark theme toggle');
  });

  test("replies are text rows; usage, status pings, acks, command lists, run-scoped cancels and empty subagent stops are plumbing; usage is the turn's token count", () => {
    const b = build([
      ev('run.started', { data: { prompt: 'fix it' } }),
      ev('x.acp.usage.updated', { data: { 'gen_ai.usage.input_tokens': 100, 'gen_ai.usage.output_tokens': 10 } }),
      ev('x.acp.usage.updated', { data: { 'gen_ai.usage.input_tokens': 900, 'gen_ai.usage.output_tokens': 80 } }),
      ev('x.acp.session.info.update', { data: {} }),
      ev('progress.status', { data: { message: 'thinking' } }),
      ev('delegation.subagent.stopped', { data: {} }),
      ev('delegation.subagent.stopped', { data: { agent_type: '' } }),
      ev('x.acp.available.commands.update', { data: {} }),
      ev('control.cancel', { data: { scope: 'run' } }),
      ev('control.accepted', { cause: 'nothing-known' }),
      ev('run.finished', {}),
      ev('run.started', { data: { prompt: 'and the docs' } }),
      ev('x.claude-code.usage.reported', { data: { usage: { 'gen_ai.usage.input_tokens': 12, 'gen_ai.usage.output_tokens': 5 } } }),
      ev('x.claude-code.message.replied', { data: { message_id: 'm', role: 'assistant', text: 'Done: the docs now say so.', usage: { 'gen_ai.usage.input_tokens': 20, 'gen_ai.usage.output_tokens': 7 } } }),
      ev('x.claude-code.run.interrupted', { data: { by: 'user' } }),
    ]);
    const visible = b.rows.filter((r) => !r.plumbing);
    expect(visible.map((r) => r.kind)).toEqual(['prompt', 'run-end', 'prompt', 'reply', 'run-end']);
    expect(visible[3]).toMatchObject({ title: 'Reply', detail: 'Done: the docs now say so.' });
    expect(visible[4].title).toBe('Interrupted');
    expect(visible[2].status).toEqual({ tone: 'warn', label: 'interrupted' });
    expect(b.turns[2].ended).toBe(true);
    expect(b.rows.filter((r) => r.plumbing).map((r) => r.events[0].type)).toEqual([
      'x.acp.usage.updated',
      'x.acp.usage.updated',
      'x.acp.session.info.update',
      'progress.status',
      'delegation.subagent.stopped',
      'delegation.subagent.stopped',
      'x.acp.available.commands.update',
      'control.cancel',
      'control.accepted',
      'x.claude-code.usage.reported',
    ]);
    // A running total (ACP) is kept; a transcript's per-response usage adds up.
    expect(b.turns[1].tokens).toEqual({ input: 900, output: 80 });
    expect(b.turns[2].tokens).toEqual({ input: 32, output: 12 });
  });

  test("a reply read after the hook that ended its run goes before that run's end row", () => {
    const b = build([
      ev('run.started', { run: 'r1', data: { prompt: 'go' } }),
      ev('run.finished', { run: 'r1' }),
      ev('x.claude-code.usage.reported', { run: 'r1', data: { usage: { 'gen_ai.usage.output_tokens': 3 } } }),
      ev('x.claude-code.message.replied', { run: 'r1', data: { text: 'Went.' } }),
      ev('run.started', { run: 'r2', data: { prompt: 'again' } }),
      ev('run.finished', { run: 'r2' }),
      ev('x.claude-code.message.replied', { data: { text: 'No run named.' } }),
    ]);
    expect(b.rows.filter((r) => !r.plumbing).map((r) => r.kind)).toEqual(['prompt', 'reply', 'run-end', 'prompt', 'run-end', 'reply']);
    expect(b.rows[1].turn).toBe(1);
  });

  test('a subagent stop that says something is no plumbing', () => {
    const b = build([ev('delegation.subagent.stopped', { data: { agent_type: 'Explore', summary: 'found it' } })]);
    expect(b.rows[0].plumbing).toBe(false);
  });

  test('a tool call announced without its input is titled by the command a later update carries', () => {
    const b = build([
      ev('tool.requested', { subject: 'c9', data: { tool: { name: 'Terminal', call_id: 'c9' }, kind: 'execute', args_redacted: {} } }),
      ev('x.acp.tool_call.update', { subject: 'c9', data: { args_digest: 'd', args_redacted: { command: 'echo one-session', description: 'probe' } } }),
      ev('tool.completed', { subject: 'c9', data: { tool: { name: 'Bash', call_id: 'c9' }, result_redacted: { stdout: 'one-session' } } }),
    ]);
    const tools = b.rows.filter((r) => r.kind === 'tool');
    expect(tools).toHaveLength(1);
    expect(tools[0]).toMatchObject({ title: '$ echo one-session', detail: 'Terminal', status: { tone: 'ok' } });
  });

  test('tool rows are titled by the command without its shell wrapper, and open with their output', () => {
    const b = build([
      ev('tool.requested', { data: { tool: { name: "/bin/bash -lc 'ls -la src'", call_id: 'c1' }, kind: 'execute', args_redacted: { command: "/bin/bash -lc 'ls -la src'", cwd: '/w' } } }),
      ev('tool.completed', { data: { tool: { name: "/bin/bash -lc 'ls -la src'", call_id: 'c1' }, result_redacted: 'index.ts\nmain.ts\n' } }),
      ev('tool.requested', { data: { tool: { name: 'Terminal', call_id: 'c2' }, args: { command: ['bash', '-lc', "echo 'hi'"] } } }),
      ev('tool.requested', { data: { tool: { name: 'Terminal', call_id: 'c3' }, args: {} } }),
    ]);
    expect(b.rows.map((r) => r.title)).toEqual(['$ ls -la src', "$ echo 'hi'", 'Terminal']);
    // A tool named by its own command line says nothing more beside it.
    expect(b.rows[0].detail).toBe('');
    expect(b.rows[1].detail).toBe('Terminal');
    expect(b.rows[2].detail).toBe('');
    const pieces = toolPieces(b.rows[0]);
    expect(pieces).toEqual([
      { kind: 'terminal', label: 'Command', text: '$ ls -la src' },
      { kind: 'terminal', label: 'Output', text: 'index.ts\nmain.ts\n' },
    ]);
  });

  test('shell wrappers come off, quoting undone; anything else stays', () => {
    expect(unwrapShell("/bin/bash -lc 'it'\\''s here'")).toBe("it's here");
    expect(unwrapShell('sh -c "echo \\"x\\""')).toBe('echo "x"');
    expect(unwrapShell('zsh -lc npm test')).toBe('npm test');
    expect(unwrapShell('npm test')).toBe('npm test');
    expect(unwrapShell('bash script.sh')).toBe('bash script.sh');
  });
});

describe('session facts', () => {
  test('a turn interrupted in the agent leaves the session idle, not working', () => {
    const events = [ev('session.started'), ev('run.started', { data: { prompt: 'go' } }), ev('x.claude-code.run.interrupted', { data: { by: 'user' } })];
    expect(streamState(events).phase).toBe('idle');
    expect(sessionFacts(events).currentPrompt).toBeNull();
  });

  test("the title is the agent's own, else the first prompt; the model and the cost are the last reported", () => {
    const base = [
      ev('session.started', { data: { 'gen_ai.request.model': 'claude-sonnet' } }),
      ev('run.started', { data: { prompt: '  Fix the flaky invoice test  ' } }),
      ev('run.started', { data: { prompt: 'and another thing' } }),
      ev('x.claude-code.message.replied', { data: { text: 'ok', 'gen_ai.request.model': 'claude-opus-5-5', usage: { 'gen_ai.usage.input_tokens': 10, 'gen_ai.usage.output_tokens': 2 } } }),
      ev('x.claude-code.usage.reported', { data: { cost: { currency: 'USD', total: 0.0123 } } }),
    ];
    const facts = sessionFacts(base);
    expect(facts).toMatchObject({ title: 'Fix the flaky invoice test', model: 'claude-opus-5-5', cost: { currency: 'USD', total: 0.0123 }, usage: { input: 10, output: 2 } });
    expect(sessionFacts([...base, ev('x.claude-code.session.titled', { data: { title: 'Invoice rounding' } })]).title).toBe('Invoice rounding');
    expect(sessionFacts([ev('run.started', { capture: 'metadata' })]).title).toBeNull();
    expect(formatCost({ currency: 'USD', total: 0.0123 })).toBe('$0.012');
    expect(formatCost({ currency: 'EUR', total: 12.5 })).toBe('12.50 EUR');
  });
});
