/**
 * Every mapped event, once the emitter adds its envelope, is a valid AEP event: checked with the AEP
 * core validator for every fixture payload at every capture ceiling, `none` included.
 */
import { describe, expect, it } from 'vitest';
import { AEP_VERSION, isAgentScoped, type Capture } from '../../../common/aep/envelope';
import type { VendorId } from '../../../common/vendors';
import { ulid, validateEvent } from '../../../main/core/aep';
import {
  INITIAL_MAPPING_STATE,
  VENDOR_ADAPTERS,
  type MappedEvent,
} from '../../../main/core/vendors';
import { loadMappingFixture, mustParse, testContext } from './mapping-context';

const envelope = (vendor: VendorId, event: MappedEvent, seq: number): Record<string, unknown> => {
  const { key: _key, causeHint: _hint, subjectFromCause: _fromCause, ...rest } = event;
  const scoped = isAgentScoped(event.type) ? {} : { session: 's_fix_1', seq, epoch: 1 };
  return {
    aep: AEP_VERSION,
    id: ulid(),
    time: new Date(0).toISOString(),
    source: `aep://localhost/agent/${vendor}`,
    agent: vendor,
    ...scoped,
    ...rest,
  };
};

const payloadsOf = (vendor: VendorId): [string, unknown][] => {
  const fixture = loadMappingFixture(vendor);
  if (vendor === 'claude-code') {
    const ask = fixture.ask_user_question as { input: unknown };
    const elicitation = fixture.elicitation as {
      input: { message: string; requestedSchema: unknown };
    };
    return [
      [
        'AskUserQuestion',
        {
          hook_event_name: 'PermissionRequest',
          session_id: 's',
          tool_name: 'AskUserQuestion',
          tool_input: ask.input,
        },
      ],
      [
        'Elicitation',
        {
          hook_event_name: 'Elicitation',
          session_id: 's',
          mcp_server_name: 'm',
          message: elicitation.input.message,
          requested_schema: elicitation.input.requestedSchema,
        },
      ],
      [
        'PreToolUse',
        {
          hook_event_name: 'PreToolUse',
          session_id: 's',
          tool_name: 'Bash',
          tool_use_id: 't',
          tool_input: { command: 'ls ~' },
        },
      ],
      [
        'PostToolUseFailure',
        {
          hook_event_name: 'PostToolUseFailure',
          session_id: 's',
          tool_name: 'Bash',
          tool_use_id: 't',
          tool_input: {},
          error: 'boom',
          is_interrupt: true,
        },
      ],
      [
        'StopFailure',
        {
          hook_event_name: 'StopFailure',
          session_id: 's',
          error: 'rate_limit',
          error_details: 'slow down',
        },
      ],
      [
        'TaskCreated',
        {
          hook_event_name: 'TaskCreated',
          session_id: 's',
          task_id: 'k',
          task_subject: 'write tests',
        },
      ],
      [
        'ElicitationResult',
        {
          hook_event_name: 'ElicitationResult',
          session_id: 's',
          mcp_server_name: 'm',
          action: 'accept',
        },
      ],
      [
        'SessionStart',
        { hook_event_name: 'SessionStart', session_id: 's', source: 'startup', cwd: '/home/u/p' },
      ],
      ['TeammateIdle', { hook_event_name: 'TeammateIdle', session_id: 's', teammate_name: 'ana' }],
    ];
  }
  const hooks = Object.entries(fixture.hooks as Record<string, { input: unknown }>).map(
    ([name, c]): [string, unknown] => [name, c.input],
  );
  return [...hooks, ['fallback', (fixture.fallback as { input: unknown }).input]];
};

const CEILINGS: Capture[] = ['none', 'metadata', 'redacted', 'full'];

for (const vendor of ['claude-code', 'codex', 'qwen-code', 'vscode', 'hermes'] as const) {
  describe(`${vendor} mapped events`, () => {
    const adapter = VENDOR_ADAPTERS[vendor];
    it.each(payloadsOf(vendor))('%s validates at every ceiling', (_name, payload) => {
      for (const level of CEILINGS) {
        const context = testContext({ capture: { default: level, attention: level } });
        const { events } = adapter.map(mustParse(adapter, payload), INITIAL_MAPPING_STATE, context);
        events.forEach((event, index) => {
          const checked = validateEvent(envelope(vendor, event, index + 1));
          expect(checked.ok ? 'valid' : `${level} ${event.type}: ${checked.error.message}`).toBe(
            'valid',
          );
          expect(event.capture).toBe(level);
          // At ceiling none an event carries no payload at all.
          expect(event.data === undefined).toBe(level === 'none');
        });
      }
    });
  });
}
