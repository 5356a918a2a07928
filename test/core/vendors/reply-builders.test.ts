/** Reply bodies per vendor: empty, steering context on delivery moments only, never on held moments. */
import { describe, expect, it } from 'vitest';
import { VENDORS } from '../../../common/vendors';
import { VENDOR_ADAPTERS } from '../../../main/core/vendors';
import { mustParse } from './mapping-context';

const call = (vendor: (typeof VENDORS)[number], payload: Record<string, unknown>) =>
  mustParse(VENDOR_ADAPTERS[vendor], { session_id: 's1', ...payload });

describe('empty replies', () => {
  it.each(VENDORS.map((vendor) => [vendor]))('%s says nothing with {}', (vendor) => {
    expect(VENDOR_ADAPTERS[vendor].emptyReply()).toEqual({});
  });
});

describe('steering replies', () => {
  it.each([
    ['claude-code', 'UserPromptSubmit'],
    ['claude-code', 'PostToolUse'],
    ['codex', 'PreToolUse'],
    ['codex', 'PostToolUse'],
    ['qwen-code', 'UserPromptSubmit'],
    ['qwen-code', 'PostToolUse'],
    ['vscode', 'SessionStart'],
  ] as const)(
    '%s %s carries hookSpecificOutput.additionalContext for that moment',
    (vendor, moment) => {
      const payload = { hook_event_name: moment, tool_name: 'Bash', tool_input: {} };
      const reply = VENDOR_ADAPTERS[vendor].steeringReply(
        call(vendor, payload),
        'Use the staging database.',
      );
      expect(reply).toEqual({
        ok: true,
        value: {
          hookSpecificOutput: {
            hookEventName: moment,
            additionalContext: 'Use the staging database.',
          },
        },
      });
    },
  );

  it('Hermes pre_llm_call carries { context }', () => {
    const reply = VENDOR_ADAPTERS.hermes.steeringReply(
      call('hermes', { hook_event_name: 'pre_llm_call' }),
      'Stop after tests.',
    );
    expect(reply).toEqual({ ok: true, value: { context: 'Stop after tests.' } });
  });

  it.each([
    ['codex', 'Stop'],
    ['qwen-code', 'PreToolUse'],
    ['hermes', 'pre_tool_call'],
    ['claude-code', 'Stop'],
    ['vscode', 'PreCompact'],
  ] as const)('%s %s is not a delivery moment', (vendor, moment) => {
    const target = call(vendor, { hook_event_name: moment, tool_name: 'x', tool_input: {} });
    expect(VENDOR_ADAPTERS[vendor].acceptsSteering(target)).toBe(false);
    const reply = VENDOR_ADAPTERS[vendor].steeringReply(target, 'text');
    expect(reply.ok).toBe(false);
    if (!reply.ok) expect(reply.error.code).toBe('not-a-delivery-moment');
  });

  it('refuses steering into a held PermissionRequest and flags it held', () => {
    for (const vendor of ['claude-code', 'codex', 'qwen-code'] as const) {
      const held = call(vendor, {
        hook_event_name: 'PermissionRequest',
        tool_name: 'Bash',
        tool_input: { command: 'ls' },
      });
      expect(VENDOR_ADAPTERS[vendor].isHeld(held)).toBe(true);
      expect(VENDOR_ADAPTERS[vendor].acceptsSteering(held)).toBe(false);
      expect(VENDOR_ADAPTERS[vendor].steeringReply(held, 'text').ok).toBe(false);
    }
  });

  it('does not steer through a hook fired inside a subagent, whose context reaches only the subagent', () => {
    const inSubagent = call('claude-code', {
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: {},
      agent_id: 'a1',
    });
    const mainThread = call('claude-code', {
      hook_event_name: 'PreToolUse',
      tool_name: 'Bash',
      tool_input: {},
    });
    expect(VENDOR_ADAPTERS['claude-code'].acceptsSteering(inSubagent)).toBe(false);
    expect(VENDOR_ADAPTERS['claude-code'].acceptsSteering(mainThread)).toBe(true);
  });
});

describe('held moments and session ends', () => {
  it('flags ordinary moments as not held', () => {
    expect(
      VENDOR_ADAPTERS['claude-code'].isHeld(
        call('claude-code', { hook_event_name: 'UserPromptSubmit' }),
      ),
    ).toBe(false);
    expect(
      VENDOR_ADAPTERS['claude-code'].isHeld(
        call('claude-code', { hook_event_name: 'Elicitation' }),
      ),
    ).toBe(true);
  });

  it('recognizes each vendor session-end moment and nothing else', () => {
    expect(
      VENDOR_ADAPTERS['claude-code'].endsSession(
        call('claude-code', { hook_event_name: 'SessionEnd' }),
      ),
    ).toBe(true);
    expect(
      VENDOR_ADAPTERS['qwen-code'].endsSession(
        call('qwen-code', { hook_event_name: 'SessionEnd' }),
      ),
    ).toBe(true);
    expect(
      VENDOR_ADAPTERS.hermes.endsSession(
        call('hermes', { hook_event_name: 'on_session_finalize' }),
      ),
    ).toBe(true);
    expect(
      VENDOR_ADAPTERS.hermes.endsSession(call('hermes', { hook_event_name: 'on_session_end' })),
    ).toBe(false);
    expect(VENDOR_ADAPTERS.codex.endsSession(call('codex', { hook_event_name: 'Stop' }))).toBe(
      false,
    );
    expect(VENDOR_ADAPTERS.vscode.endsSession(call('vscode', { hook_event_name: 'Stop' }))).toBe(
      false,
    );
  });
});
