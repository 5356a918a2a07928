/**
 * Decisions for held permission moments: allow / deny / free text (AEP-0008), form values for
 * AskUserQuestion and MCP elicitation (AEP-0006), with the applied answer recorded capture-gated.
 */
import { describe, expect, it } from 'vitest';
import { VENDOR_ADAPTERS } from '../../../main/core/vendors';
import { OPERATOR_DENY_MESSAGE } from '../../../main/core/vendors/permission-answers';
import { loadMappingFixture, mustParse, testContext } from './mapping-context';

const permissionCall = (vendor: 'claude-code' | 'codex' | 'qwen-code') =>
  mustParse(VENDOR_ADAPTERS[vendor], {
    hook_event_name: 'PermissionRequest',
    session_id: 's1',
    tool_name: 'Bash',
    tool_input: { command: 'rm -rf build' },
  });

const decision = (behavior: 'allow' | 'deny', message?: string) => ({
  hookSpecificOutput: {
    hookEventName: 'PermissionRequest',
    decision: message === undefined ? { behavior } : { behavior, message },
  },
});

describe.each([['claude-code'], ['codex'], ['qwen-code']] as const)(
  '%s permission decisions',
  (vendor) => {
    const adapter = VENDOR_ADAPTERS[vendor];
    const context = testContext();

    it('allows on the allow option', () => {
      expect(adapter.permissionReply(permissionCall(vendor), { option: 'allow' }, context)).toEqual(
        {
          ok: true,
          value: {
            reply: decision('allow'),
            answered: { answer: { option: 'allow' }, via: 'control' },
          },
        },
      );
    });

    it('denies on the deny option with the operator message', () => {
      expect(adapter.permissionReply(permissionCall(vendor), { option: 'deny' }, context)).toEqual({
        ok: true,
        value: {
          reply: decision('deny', OPERATOR_DENY_MESSAGE),
          answered: { answer: { option: 'deny' }, via: 'control' },
        },
      });
    });

    it('treats text naming an option as that option', () => {
      const reply = adapter.permissionReply(permissionCall(vendor), { text: '  Allow ' }, context);
      expect(reply.ok && reply.value.reply).toEqual(decision('allow'));
    });

    it('turns any other text into a deny carrying the text as guidance, never an allow', () => {
      const reply = adapter.permissionReply(
        permissionCall(vendor),
        { text: 'use trash-cli instead' },
        context,
      );
      expect(reply).toEqual({
        ok: true,
        value: {
          reply: decision('deny', 'use trash-cli instead'),
          answered: { answer: { option: 'deny', text: 'use trash-cli instead' }, via: 'control' },
        },
      });
    });

    it('redacts guidance text in the recorded answer but hands it to the agent whole', () => {
      const text = 'retry with token=abc123secret';
      const reply = adapter.permissionReply(permissionCall(vendor), { text }, context);
      expect(reply.ok && reply.value.reply).toEqual(decision('deny', text));
      expect(reply.ok && reply.value.answered).toEqual({
        answer: { option: 'deny', text: 'retry with token=[REDACTED:secret]' },
        via: 'control',
      });
    });

    it('drops guidance text from the record when attention is capped at metadata', () => {
      const metadata = testContext({ capture: { default: 'metadata', attention: 'metadata' } });
      const reply = adapter.permissionReply(
        permissionCall(vendor),
        { text: 'no, use trash' },
        metadata,
      );
      expect(reply.ok && reply.value.answered).toEqual({
        answer: { option: 'deny' },
        via: 'control',
      });
    });

    it.each([[{ option: 'maybe' }], [{}], [{ text: '   ' }], [{ values: { '1': '1' } }]])(
      'refuses the answer %j',
      (answer) => {
        const reply = adapter.permissionReply(permissionCall(vendor), answer, context);
        expect(reply.ok).toBe(false);
        if (!reply.ok) expect(reply.error.code).toBe('invalid-answer');
      },
    );

    it('refuses to decide a moment that is not a permission moment', () => {
      const stop = mustParse(adapter, { hook_event_name: 'Stop', session_id: 's1' });
      const reply = adapter.permissionReply(stop, { option: 'allow' }, context);
      expect(reply.ok === false && reply.error.code).toBe('not-a-permission-moment');
    });
  },
);

describe('moments that are not answerable', () => {
  it.each([
    ['vscode', 'Stop'],
    ['hermes', 'pre_approval_request'],
  ] as const)('%s refuses to decide %s', (vendor, moment) => {
    const adapter = VENDOR_ADAPTERS[vendor];
    const call = mustParse(adapter, {
      hook_event_name: moment,
      session_id: 's1',
      tool_name: 'x',
      extra: { session_key: 's1' },
    });
    const reply = adapter.permissionReply(call, { option: 'allow' }, testContext());
    expect(reply.ok === false && reply.error.code).toBe('not-a-permission-moment');
  });
});

describe('AskUserQuestion answers', () => {
  const adapter = VENDOR_ADAPTERS['claude-code'];
  const input = (
    loadMappingFixture('claude-code').ask_user_question as { input: { questions: unknown[] } }
  ).input;
  const ask = mustParse(adapter, {
    hook_event_name: 'PermissionRequest',
    session_id: 's1',
    tool_name: 'AskUserQuestion',
    tool_input: input,
  });

  it('allows with updatedInput answers keyed by question text, labels for choice ids', () => {
    const reply = adapter.permissionReply(
      ask,
      { values: { '1': '2', '2': ['1', '2'] } },
      testContext(),
    );
    expect(reply).toEqual({
      ok: true,
      value: {
        reply: {
          hookSpecificOutput: {
            hookEventName: 'PermissionRequest',
            decision: {
              behavior: 'allow',
              updatedInput: {
                questions: input.questions,
                answers: {
                  'Which database should the new service use?': 'SQLite',
                  'Which regions should we roll out to?': 'us-east, eu-west',
                },
              },
            },
          },
        },
        answered: { answer: { values: { '1': '2', '2': ['1', '2'] } }, via: 'control' },
      },
    });
  });

  it('passes "Other" free text to the agent and records it redacted', () => {
    const reply = adapter.permissionReply(
      ask,
      { values: { '1': 'DuckDB at /home/alice/db', '2': ['1'] } },
      testContext(),
    );
    expect(reply.ok && reply.value.reply).toMatchObject({
      hookSpecificOutput: {
        decision: {
          updatedInput: {
            answers: { 'Which database should the new service use?': 'DuckDB at /home/alice/db' },
          },
        },
      },
    });
    expect(reply.ok && reply.value.answered).toEqual({
      answer: { values: { '1': 'DuckDB at ~/db', '2': ['1'] } },
      via: 'control',
    });
  });

  it('refuses an answer missing a required question', () => {
    const reply = adapter.permissionReply(ask, { values: { '1': '1' } }, testContext());
    expect(reply.ok === false && reply.error.code).toBe('invalid-answer');
  });

  it('refuses a list for a single-choice question', () => {
    const reply = adapter.permissionReply(
      ask,
      { values: { '1': ['1', '2'], '2': ['1'] } },
      testContext(),
    );
    expect(reply.ok === false && reply.error.code).toBe('invalid-answer');
  });
});

describe('MCP elicitation answers', () => {
  const adapter = VENDOR_ADAPTERS['claude-code'];
  const { input } = loadMappingFixture('claude-code').elicitation as {
    input: { message: string; requestedSchema: unknown };
  };
  const elicitation = mustParse(adapter, {
    hook_event_name: 'Elicitation',
    session_id: 's1',
    mcp_server_name: 'deployer',
    message: input.message,
    requested_schema: input.requestedSchema,
  });

  it('accepts valid values as the elicitation content', () => {
    const values = { environment: 'staging', confirm: true, replicas: 3 };
    const reply = adapter.permissionReply(elicitation, { values }, testContext());
    expect(reply).toEqual({
      ok: true,
      value: {
        reply: {
          hookSpecificOutput: { hookEventName: 'Elicitation', action: 'accept', content: values },
        },
        answered: { answer: { values }, via: 'control' },
      },
    });
  });

  it('refuses a value outside a closed enum', () => {
    const reply = adapter.permissionReply(
      elicitation,
      { values: { environment: 'moon', confirm: true } },
      testContext(),
    );
    expect(reply.ok === false && reply.error.code).toBe('invalid-answer');
  });

  it('declines on the decline option', () => {
    const reply = adapter.permissionReply(elicitation, { option: 'decline' }, testContext());
    expect(reply.ok && reply.value.reply).toEqual({
      hookSpecificOutput: { hookEventName: 'Elicitation', action: 'decline' },
    });
  });
});
