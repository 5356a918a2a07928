/**
 * The Claude Code mapping fixture pins the two form mappings (AskUserQuestion and MCP elicitation)
 * at both capture postures: the payload at `redacted` (the attention default) and at `metadata`.
 */
import { describe, expect, it } from 'vitest';
import { INITIAL_MAPPING_STATE, VENDOR_ADAPTERS } from '../../../main/core/vendors';
import {
  askUserQuestionData,
  elicitationData,
} from '../../../main/core/vendors/claude-code/hooks';
import { loadMappingFixture, mustParse, testContext } from './mapping-context';

interface FormCase {
  readonly input: Record<string, unknown>;
  readonly expected_data: unknown;
  readonly expected_data_metadata: unknown;
}

const fixture = loadMappingFixture('claude-code');
const ask = fixture.ask_user_question as FormCase;
const elicitation = fixture.elicitation as FormCase;
const metadataOnly = testContext({ capture: { default: 'metadata', attention: 'metadata' } });
const adapter = VENDOR_ADAPTERS['claude-code'];

describe('claude-code AskUserQuestion form', () => {
  it('builds the pinned form data at the redacted attention ceiling', () => {
    expect(askUserQuestionData(ask.input, testContext())).toEqual(ask.expected_data);
  });

  it('degrades labels to structural ids at a metadata ceiling', () => {
    expect(askUserQuestionData(ask.input, metadataOnly)).toEqual(ask.expected_data_metadata);
  });

  it('maps a PermissionRequest for AskUserQuestion to one form request, not a permission card', () => {
    const call = mustParse(adapter, {
      hook_event_name: 'PermissionRequest',
      session_id: 's1',
      tool_name: 'AskUserQuestion',
      tool_input: ask.input,
    });
    const { events } = adapter.map(call, INITIAL_MAPPING_STATE, testContext());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'attention.requested',
      subject: 'AskUserQuestion',
      capture: 'redacted',
    });
    expect(events[0].data).toEqual(ask.expected_data);
  });
});

describe('claude-code MCP elicitation form', () => {
  const input = elicitation.input;

  it('builds the pinned form data at the redacted attention ceiling', () => {
    expect(elicitationData(input.message as string, input.requestedSchema, testContext())).toEqual(
      elicitation.expected_data,
    );
  });

  it('synthesizes the prompt and uses keys and enum values as labels at a metadata ceiling', () => {
    expect(elicitationData(input.message as string, input.requestedSchema, metadataOnly)).toEqual(
      elicitation.expected_data_metadata,
    );
  });

  it('maps the Elicitation hook (snake_case schema field) to the pinned form request', () => {
    const call = mustParse(adapter, {
      hook_event_name: 'Elicitation',
      session_id: 's1',
      mcp_server_name: 'deployer',
      message: input.message,
      requested_schema: input.requestedSchema,
    });
    const { events } = adapter.map(call, INITIAL_MAPPING_STATE, testContext());
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'attention.requested', subject: 'deployer' });
    expect(events[0].data).toEqual(elicitation.expected_data);
  });
});
