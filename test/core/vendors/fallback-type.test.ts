/** Unknown hooks land in the vendor extension namespace with a legal AEP type name, never on a core type. */
import { describe, expect, it } from 'vitest';
import { VENDORS } from '../../../common/vendors';
import { isLegalType } from '../../../main/core/aep';
import {
  fallbackType,
  INITIAL_MAPPING_STATE,
  VENDOR_ADAPTERS,
} from '../../../main/core/vendors';
import { snakeCase } from '../../../main/core/vendors/fallback';
import { hermesFallbackType } from '../../../main/core/vendors/hermes/hooks';
import { mustParse, testContext } from './mapping-context';

describe('snake_case naming of hook names', () => {
  it.each([
    ['SomeFutureHook', 'some_future_hook'],
    ['PostToolBatch', 'post_tool_batch'],
    ['MCPServerReady', 'mcp_server_ready'],
    ['pre_verify', 'pre_verify'],
    ['kebab-case-hook', 'kebab_case_hook'],
    ['Weird  Name!', 'weird_name'],
    ['!!!', 'unnamed'],
  ])('%s becomes %s', (name, expected) => {
    expect(snakeCase(name)).toBe(expected);
  });
});

describe('fallback types', () => {
  it('names the vendor and the session category', () => {
    expect(fallbackType('claude-code', 'InstructionsLoaded')).toBe(
      'x.claude-code.session.instructions_loaded',
    );
    expect(fallbackType('codex', 'Interrupt')).toBe('x.codex.session.interrupt');
  });

  it('splits Hermes hook names into category and action', () => {
    expect(hermesFallbackType('pre_verify')).toBe('x.hermes.pre.verify');
    expect(hermesFallbackType('post_llm_call')).toBe('x.hermes.post.llm_call');
    expect(hermesFallbackType('heartbeat')).toBe('x.hermes.session.heartbeat');
  });

  // Cline's payloads have their own shape: its fallback is pinned in test/core/cline/cline-mapping.test.ts.
  it.each(VENDORS.filter((vendor) => vendor !== 'cline').map((vendor) => [vendor]))(
    '%s maps an unknown hook to a legal extension type with no content',
    (vendor) => {
      const adapter = VENDOR_ADAPTERS[vendor];
      const payload = {
        hook_event_name: 'BrandNew Hook',
        session_id: 's1',
        prompt: 'secret plans',
        extra: {},
      };
      const { events } = adapter.map(
        mustParse(adapter, payload),
        INITIAL_MAPPING_STATE,
        testContext(),
      );
      expect(events).toHaveLength(1);
      expect(events[0].type.startsWith(`x.${vendor}.`)).toBe(true);
      expect(isLegalType(events[0].type)).toBe(true);
      expect(events[0].data).toEqual({});
    },
  );
});
