/**
 * Capture ceiling `none` (AEP-0001 §8.2: envelope only): with the operator's ceilings at `none`,
 * every mapped event is still emitted, stored and valid, and carries no `data` at all.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionSummary } from '../../../common/sessions';
import { validateEvent } from '../../../main/core/aep';
import { ccPayload, command, Consumer, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from './hooks-harness';

let d: HooksDaemon;
let consumer: Consumer;

beforeEach(async () => {
  d = await startHooksDaemon({ clock: new TestClock() });
  consumer = await Consumer.open(d.url, d.daemon.tokens.operator, {}, 'full');
});
afterEach(async () => {
  consumer.close();
  await d.close();
  removeDataDir(d.dataDir);
});

const api = (method: string, path: string, body?: unknown) =>
  fetch(`${d.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${d.daemon.tokens.operator}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

describe('capture ceiling none', () => {
  it('stores every mapped event as a valid envelope-only event', async () => {
    const patched = await api('PATCH', '/api/settings', { 'capture.ceiling': 'none', 'capture.attentionCeiling': 'none' });
    expect(patched.status).toBe(200);
    const post = (event: string, extra: Record<string, unknown> = {}) =>
      postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload(event, 's1', extra));
    const tool = { tool_name: 'Bash', tool_use_id: 'tu1', tool_input: { command: 'ls' } };
    await post('SessionStart', { source: 'startup' });
    await post('UserPromptSubmit', { prompt: 'secret plans' });
    await post('PreToolUse', tool);
    await post('PermissionRequest', tool);
    await post('PostToolUse', { ...tool, tool_response: { output: 'x' } });
    await post('Stop', {});
    await consumer.event((e) => e.type === 'run.finished');

    const events = consumer.events().filter((e) => e.session === 's1');
    // Each hook's events are sent in call order, so everything before run.finished has arrived.
    expect(events.map((e) => e.type)).toEqual([
      'session.started',
      'run.started',
      'tool.requested',
      'attention.requested',
      'tool.completed',
      'run.finished',
    ]);
    for (const e of events) {
      expect({ type: e.type, capture: e.capture, hasData: 'data' in e }).toEqual({ type: e.type, capture: 'none', hasData: false });
      const result = validateEvent(e);
      expect(result.ok ? 'valid' : `${e.type}: ${result.error.message}`).toBe('valid');
    }
    const [row] = (await (await api('GET', '/api/sessions')).json()) as SessionSummary[];
    expect(row.eventCount).toBe(events.length);
  });

  it("keeps the permission loop's answer and resolution envelope-only at an attention ceiling of none", async () => {
    await api('PATCH', '/api/settings', { 'capture.ceiling': 'none', 'capture.attentionCeiling': 'none' });
    const held = postHook(
      d.url,
      d.daemon.tokens.hook,
      'claude-code',
      ccPayload('PermissionRequest', 's1', { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }),
      { permissions: true },
    );
    const request = await consumer.event((e) => e.type === 'attention.requested');
    consumer.send(command('control.attention.respond', 's1', { answer: { option: 'allow' } }, { subject: request.id, cause: request.id }));
    expect((await held).json).toMatchObject({ hookSpecificOutput: { decision: { behavior: 'allow' } } });
    const answered = await consumer.event((e) => e.type === 'attention.answered');
    const resolved = await consumer.event((e) => e.type === 'attention.resolved');
    for (const e of [request, answered, resolved]) {
      expect({ type: e.type, capture: e.capture, hasData: 'data' in e }).toEqual({ type: e.type, capture: 'none', hasData: false });
      const result = validateEvent(e);
      expect(result.ok ? 'valid' : `${e.type}: ${result.error.message}`).toBe('valid');
    }
    expect([answered.subject, resolved.subject]).toEqual([request.id, request.id]);
  });
});
