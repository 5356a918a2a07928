/**
 * What an opened row shows, in Node: terminal text with ANSI as classes (never inline styles,
 * never a literal `\n`), edits as diffs, reads as file excerpts, other data as JSON; long text
 * cut with a count; turns; and the inbox and the timeline settling a request the same way.
 */
import { describe, expect, test } from 'vitest';
import type { AepEvent } from '../../common/aep/envelope';
import { attentionItems } from '../../renderer/src/model/attention-items';
import { EventLog } from '../../renderer/src/model/event-log';
import { buildTimeline, TimelineBuilder } from '../../renderer/src/model/timeline';
import { diffText, rowPieces, truncateText } from '../../renderer/src/model/tool-content';
import { ansiToHtml } from '../../renderer/src/ui/ansi';

let n = 0;
function ev(type: string, extra: Partial<AepEvent> = {}): AepEvent {
  n++;
  return { aep: '0.1', id: `c${n}`, type, time: new Date(Date.UTC(2026, 10, 29, 12, 0, n)).toISOString(), source: 'aep://localhost/test', agent: 'claude-code', session: 's1', seq: n, capture: 'full', ...extra };
}

function toolRow(name: string, args: unknown, result: unknown) {
  const id = `call-${n}`;
  return buildTimeline([ev('tool.requested', { data: { tool: { name, call_id: id }, args } }), ev('tool.completed', { data: { tool: { name, call_id: id }, result } })])[0];
}

describe('row content', () => {
  test('Bash: the command and its output as terminal text, line breaks kept, stderr apart', () => {
    const pieces = rowPieces(toolRow('Bash', { command: 'npm test' }, { stdout: 'PASS a\nPASS b\n', stderr: 'warn: slow', interrupted: false }));
    expect(pieces).toEqual([
      { kind: 'terminal', label: 'Command', text: '$ npm test' },
      { kind: 'terminal', label: 'Output', text: 'PASS a\nPASS b\n' },
      { kind: 'terminal', label: 'Errors', text: 'warn: slow', tone: 'error' },
    ]);
  });

  test('a result that arrives as JSON text is read as the object it encodes', () => {
    const pieces = rowPieces(toolRow('run_shell_command', { command: ['ls', '-la'] }, JSON.stringify({ output: 'a\nb' })));
    expect(pieces[0]).toEqual({ kind: 'terminal', label: 'Command', text: '$ ls -la' });
    expect(pieces[1]).toEqual({ kind: 'terminal', label: 'Output', text: 'a\nb' });
  });

  test('ANSI colours become classes, bold a class too, HTML is escaped, and no inline style is left', () => {
    const html = ansiToHtml('\u001b[31mFAIL\u001b[0m \u001b[1mbold\u001b[0m <script>');
    expect(html).toContain('<span class="ansi-red-fg">FAIL</span>');
    expect(html).toContain('<span class="ansi-bold">bold</span>');
    expect(html).toContain('&lt;script&gt;');
    expect(html).not.toContain('style=');
    expect(ansiToHtml('\u001b[38;2;10;20;30mtrue\u001b[0m')).not.toContain('style=');
  });

  test('Edit, MultiEdit and Write as diffs with their path', () => {
    expect(rowPieces(toolRow('Edit', { file_path: '/p/a.ts', old_string: 'let x = 1;', new_string: 'const x = 1;' }, {}))).toEqual([{ kind: 'diff', path: '/p/a.ts', before: 'let x = 1;', after: 'const x = 1;' }]);
    const multi = rowPieces(toolRow('MultiEdit', { file_path: '/p/b.ts', edits: [{ old_string: 'a', new_string: 'b' }, { old_string: 'c', new_string: 'd' }] }, {}));
    expect(multi.map((p) => p.kind)).toEqual(['diff', 'diff']);
    expect(rowPieces(toolRow('Write', { file_path: '/p/new.md', content: '# New\n' }, { type: 'create' }))).toEqual([{ kind: 'diff', path: '/p/new.md', before: '', after: '# New\n' }]);
    expect(diffText('a\nb\n', 'a\nc\n')).toBe(' a\n-b\n+c');
  });

  test('Read as a file excerpt with its path and first line number', () => {
    const pieces = rowPieces(toolRow('Read', { file_path: '/p/c.ts', offset: 10 }, { type: 'text', file: { filePath: '/p/c.ts', content: 'line ten\nline eleven', startLine: 10, numLines: 2 } }));
    expect(pieces).toEqual([{ kind: 'file', path: '/p/c.ts', text: 'line ten\nline eleven', startLine: 10 }]);
  });

  test('other tools: arguments and result as JSON; prompts as text', () => {
    expect(rowPieces(toolRow('WebFetch', { url: 'https://x' }, { status: 200 })).map((p) => p.kind)).toEqual(['json', 'json']);
    const prompt = buildTimeline([ev('run.started', { data: { prompt: 'Fix it\nplease' } })])[0];
    expect(rowPieces(prompt)).toEqual([{ kind: 'text', label: 'Prompt', text: 'Fix it\nplease' }]);
  });

  test('long text is cut to its first lines and says how long it is', () => {
    const long = Array.from({ length: 100 }, (_, i) => `line ${i}`).join('\n');
    const t = truncateText(long, 40);
    expect(t.truncated).toBe(true);
    expect(t.lines).toBe(100);
    expect(t.shown.split('\n')).toHaveLength(40);
    expect(truncateText('short').truncated).toBe(false);
    expect(truncateText('x'.repeat(7000)).truncated).toBe(true);
  });
});

describe('turns', () => {
  test('rows are grouped by prompt turn, with tools counted per turn and the prompt settled by its run end', () => {
    const b = new TimelineBuilder();
    b.update({
      events: [
        ev('session.started'),
        ev('run.started', { data: { prompt: 'one' } }),
        ev('tool.requested', { data: { tool: { name: 'Bash', call_id: 't1' } } }),
        ev('run.finished', { data: { duration_ms: 1500 } }),
        ev('run.started', { data: { prompt: 'two' } }),
      ],
      reorders: 0,
    });
    expect(b.rows.map((r) => r.turn)).toEqual([0, 1, 1, 1, 2]);
    expect(b.turns.map((t) => [t.turn, t.rows, t.tools, t.ended])).toEqual([
      [0, 1, 0, false],
      [1, 3, 1, true],
      [2, 1, 0, false],
    ]);
    expect(b.rows[1].status).toEqual({ tone: 'ok', label: 'finished · 1.5 s' });
    expect(b.rows[4].status?.label).toBe('running');
  });
});

describe('inbox and timeline agree on how a request ended', () => {
  test('a request dismissed by a new prompt reads "dismissed" in both; an answer reads "answered" in both', () => {
    const request = ev('attention.requested', { data: { kind: 'permission', prompt: 'rm -rf build?' } });
    const dismissed = ev('attention.resolved', { subject: request.id, cause: request.id, data: { resolution: 'dismissed' } });
    const asked = ev('attention.requested', { data: { kind: 'permission', prompt: 'push?' } });
    const answered = ev('attention.answered', { subject: asked.id, data: { answer: { option: 'allow' } } });
    const resolved = ev('attention.resolved', { subject: asked.id, data: { resolution: 'answered' } });
    const all = [request, dismissed, asked, answered, resolved];
    const log = new EventLog();
    for (const e of all) log.add(e);
    const bySubject = new Map<string, AepEvent[]>();
    for (const e of all) if (e.subject) bySubject.set(e.subject, [...(bySubject.get(e.subject) ?? []), e]);
    const inbox = attentionItems(new Map([['s1', log]]), bySubject).closed;
    const timeline = buildTimeline(all).filter((r) => r.kind === 'attention');
    const inboxLabel = (id: string) => inbox.find((i) => i.request.id === id)!.outcome.label;
    const timelineLabel = (id: string) => timeline.find((r) => r.events[0].id === id)!.status!.label;
    expect(inboxLabel(request.id)).toBe('dismissed');
    expect(timelineLabel(request.id)).toBe('dismissed');
    expect(inboxLabel(asked.id)).toBe('answered: allow');
    expect(timelineLabel(asked.id)).toBe('answered: allow');
  });
});
