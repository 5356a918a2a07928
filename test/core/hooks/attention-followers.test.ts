/**
 * Attention followers through the hook route (AEP-0002 §7.1): every lifecycle event after
 * `attention.requested` carries the request's event id as `subject` (and as `cause`), for the
 * Hermes approval gate, the Hermes clarify card and Claude Code's MCP elicitation.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { validateEvent } from '../../../main/core/aep';
import { ccPayload, Consumer, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from './hooks-harness';

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

const post = (vendor: string, payload: unknown) => postHook(d.url, d.daemon.tokens.hook, vendor, payload);

/** A Hermes shell-hook payload. */
const hermes = (event: string, session: string, extra: Record<string, unknown> = {}, rest: Record<string, unknown> = {}) => ({
  hook_event_name: event,
  tool_name: null,
  tool_input: null,
  session_id: session,
  cwd: '/home/user/proj',
  extra,
  ...rest,
});

const approval = (event: string, extra: Record<string, unknown>) =>
  hermes(event, '', { command: 'sudo make install', pattern_key: 'terminal:sudo', session_key: 'h1', surface: 'cli', ...extra });

const expectValid = (events: readonly AepEvent[]): void => {
  for (const e of events) {
    const result = validateEvent(e);
    expect(result.ok ? 'valid' : `${e.type}: ${result.error.message}`).toBe('valid');
  }
};

describe('attention follower subjects', () => {
  it('names the Hermes approval request by event id on the answer', async () => {
    await post('hermes', hermes('on_session_start', 'h1'));
    await post('hermes', approval('pre_approval_request', {}));
    await post('hermes', approval('post_approval_response', { choice: 'once' }));
    const request = await consumer.event((e) => e.type === 'attention.requested');
    const answered = await consumer.event((e) => e.type === 'attention.answered');
    expect(request.subject).toBe('terminal:sudo');
    expect({ subject: answered.subject, cause: answered.cause, session: answered.session }).toEqual({
      subject: request.id,
      cause: request.id,
      session: 'h1',
    });
    // The vendor applied the answer in its own UI: the request is resolved at once (AEP-0002 §7.1).
    const resolved = await consumer.event((e) => e.type === 'attention.resolved');
    expect([resolved.subject, resolved.cause, resolved.data]).toEqual([request.id, answered.id, { resolution: 'answered' }]);
    expectValid([request, answered, resolved]);
  });

  it('names the Hermes approval request by event id on its timeout', async () => {
    await post('hermes', hermes('on_session_start', 'h1'));
    await post('hermes', approval('pre_approval_request', {}));
    await post('hermes', approval('post_approval_response', { choice: 'timeout' }));
    const request = await consumer.event((e) => e.type === 'attention.requested');
    const timeout = await consumer.event((e) => e.type === 'attention.timeout');
    expect([timeout.subject, timeout.cause]).toEqual([request.id, request.id]);
  });

  it('names the Hermes clarify card by event id on its answer', async () => {
    const tool = (event: string, extra: Record<string, unknown>, toolInput: unknown) =>
      hermes(event, 'h1', { tool_call_id: 'call-1', ...extra }, { tool_name: 'clarify', tool_input: toolInput });
    const input = { question: 'Which database?', choices: ['postgres', 'sqlite'] };
    await post('hermes', hermes('on_session_start', 'h1'));
    await post('hermes', tool('pre_tool_call', {}, input));
    await post(
      'hermes',
      tool('post_tool_call', { status: 'ok', result: JSON.stringify({ user_response: 'sqlite', choices_offered: ['postgres', 'sqlite'] }) }, input),
    );
    const request = await consumer.event((e) => e.type === 'attention.requested');
    const answered = await consumer.event((e) => e.type === 'attention.answered');
    expect(request.subject).toBe('call-1');
    expect([answered.subject, answered.cause]).toEqual([request.id, request.id]);
    const resolved = await consumer.event((e) => e.type === 'attention.resolved');
    expect([resolved.subject, resolved.cause]).toEqual([request.id, answered.id]);
    expectValid([request, answered, resolved]);
  });

  it('names the Claude Code elicitation by event id on its result', async () => {
    const schema = { type: 'object', properties: { name: { type: 'string', title: 'Name' } }, required: ['name'] };
    await post('claude-code', ccPayload('SessionStart', 'c1', { source: 'startup' }));
    await post('claude-code', ccPayload('Elicitation', 'c1', { mcp_server_name: 'srv', elicitation_id: 'el-1', message: 'Who?', requested_schema: schema }));
    await post('claude-code', ccPayload('ElicitationResult', 'c1', { mcp_server_name: 'srv', elicitation_id: 'el-1', action: 'accept' }));
    const request = await consumer.event((e) => e.type === 'attention.requested');
    const resolved = await consumer.event((e) => e.type === 'attention.resolved');
    expect(request.subject).toBe('srv');
    expect([resolved.subject, resolved.cause]).toEqual([request.id, request.id]);
    expectValid([request, resolved]);
  });
});
