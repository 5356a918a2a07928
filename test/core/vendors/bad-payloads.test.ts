/** Malformed hook payloads are refused with a clear error result, never a throw or a silent drop. */
import { describe, expect, it } from 'vitest';
import { VENDORS, VENDOR_NAMES } from '../../../common/vendors';
import { VENDOR_ADAPTERS } from '../../../main/core/vendors';

describe.each(VENDORS.map((vendor) => [vendor]))('%s payload parsing', (vendor) => {
  const adapter = VENDOR_ADAPTERS[vendor];

  it.each([[null], [[]], ['{"hook_event_name":"Stop"}'], [42], [undefined]])(
    'refuses the non-object %j',
    (payload) => {
      const parsed = adapter.parse(payload);
      expect(parsed.ok).toBe(false);
      if (!parsed.ok) {
        expect(parsed.error.code).toBe('invalid-payload');
        expect(parsed.error.message).toBe(
          `${VENDOR_NAMES[vendor]} hook payload is not a JSON object`,
        );
      }
    },
  );

  // Cline's payloads have their own shape (hookName, sessionContext): test/core/cline/cline-mapping.test.ts.
  const claudeShaped = vendor !== 'cline';

  it.runIf(claudeShaped)('refuses a payload without a hook name', () => {
    const parsed = adapter.parse({ session_id: 's1', hook_event_name: '' });
    expect(parsed).toEqual({
      ok: false,
      error: {
        code: 'invalid-payload',
        message: `${VENDOR_NAMES[vendor]} hook payload has no hook_event_name`,
      },
    });
  });

  it.runIf(claudeShaped)('refuses a tool moment that does not name its tool', () => {
    const moment = vendor === 'hermes' ? 'pre_tool_call' : 'PreToolUse';
    const parsed = adapter.parse({
      hook_event_name: moment,
      session_id: 's1',
      tool_input: { command: 'ls' },
    });
    expect(parsed).toEqual({
      ok: false,
      error: {
        code: 'invalid-payload',
        message: `${VENDOR_NAMES[vendor]} ${moment} payload has no tool_name`,
      },
    });
  });
});

describe('missing session ids', () => {
  it.each(['claude-code', 'codex', 'qwen-code', 'hermes'] as const)(
    '%s refuses a payload without session_id',
    (vendor) => {
      const parsed = VENDOR_ADAPTERS[vendor].parse({ hook_event_name: 'Stop', session_id: '' });
      expect(parsed).toEqual({
        ok: false,
        error: {
          code: 'invalid-payload',
          message: `${VENDOR_NAMES[vendor]} Stop payload has no session_id`,
        },
      });
    },
  );

  it('puts a VS Code call without a session id on the unknown lane, as that surface makes the id optional', () => {
    const parsed = VENDOR_ADAPTERS.vscode.parse({ hook_event_name: 'Stop' });
    expect(parsed.ok && parsed.value.session).toBe('unknown');
  });

  it('reads the camelCase envelope some VS Code builds send', () => {
    const parsed = VENDOR_ADAPTERS.vscode.parse({
      hookEventName: 'SessionStart',
      sessionId: 'abc',
    });
    expect(parsed.ok && { moment: parsed.value.moment, session: parsed.value.session }).toEqual({
      moment: 'SessionStart',
      session: 'abc',
    });
  });

  it('takes a Hermes approval hook session from extra.session_key and marks it unconfirmed', () => {
    const parsed = VENDOR_ADAPTERS.hermes.parse({
      hook_event_name: 'pre_approval_request',
      session_id: '',
      extra: { session_key: 'agent:main:telegram:dm', pattern_key: 'terminal:sudo' },
    });
    expect(
      parsed.ok && { session: parsed.value.session, unconfirmed: parsed.value.sessionUnconfirmed },
    ).toEqual({
      session: 'agent:main:telegram:dm',
      unconfirmed: true,
    });
  });

  it('files a Hermes subagent hook without session_id under the parent session', () => {
    const parsed = VENDOR_ADAPTERS.hermes.parse({
      hook_event_name: 'subagent_stop',
      extra: { parent_session_id: 'parent-1', child_session_id: 'child-1' },
    });
    expect(parsed.ok && parsed.value.session).toBe('parent-1');
  });
});

describe('what a parsed call carries', () => {
  it('reads session, turn, cwd, tool and prompt from the Claude Code family envelope', () => {
    const parsed = VENDOR_ADAPTERS.codex.parse({
      hook_event_name: 'PreToolUse',
      session_id: 'thread-9',
      turn_id: 'turn-3',
      cwd: '/w',
      tool_name: 'shell',
      tool_use_id: 'call_7',
      tool_input: { command: 'ls' },
    });
    expect(parsed.ok && parsed.value).toMatchObject({
      vendor: 'codex',
      moment: 'PreToolUse',
      session: 'thread-9',
      turn: 'turn-3',
      cwd: '/w',
      tool: { name: 'shell', callId: 'call_7', input: { command: 'ls' } },
    });
  });

  it('reads the Hermes turn id, tool call id and user message from extra', () => {
    const parsed = VENDOR_ADAPTERS.hermes.parse({
      hook_event_name: 'pre_tool_call',
      session_id: 's1',
      tool_name: 'terminal',
      tool_input: { command: 'ls' },
      extra: { turn_id: 's1:t1:ab', tool_call_id: 'tc_1', user_message: 'hi' },
    });
    expect(parsed.ok && parsed.value).toMatchObject({
      session: 's1',
      turn: 's1:t1:ab',
      tool: { name: 'terminal', callId: 'tc_1' },
      prompt: 'hi',
    });
  });
});
