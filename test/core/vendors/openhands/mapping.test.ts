// The OpenHands mapping against the project's corrected fixture (test/fixtures/aep/mappings/openhands.json).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { mapEvent, newConversationMapping, statusMoments, vendorType } from '../../../../main/core/vendors/openhands/mapping';
import type { MappingContext } from '../../../../main/core/vendors/types';
import type { OhEvent } from '../../../../main/core/vendors/openhands/wire';

const fixture = JSON.parse(readFileSync(new URL('../../../fixtures/aep/mappings/openhands.json', import.meta.url), 'utf8')) as {
  events: Record<string, { input: OhEvent; expected: { type: string; data: Record<string, unknown>; subject?: string; step?: string } | null }>;
  fallback: { input: OhEvent; expected: { type: string } };
  status_transitions: Record<string, { prev: string | null; next: string; expected: { type: string; data: Record<string, unknown> }[] }>;
};

let n = 0;
const context: MappingContext = { capture: { default: 'metadata', attention: 'redacted' }, redact: (t) => t, newRunId: () => `run-${(n += 1)}`, permissionLoop: true };
const options = { answerable: false, conversation: 'c1' };

describe('OpenHands mapping (corrected fixture)', () => {
  it('the fixture carries the FACTS.md corrections', () => {
    const a = fixture.events.action_event.input;
    expect((a.action as { kind: string }).kind).toBe('TerminalAction');
    expect(a.tool_name).toBe('terminal');
    expect(a.tool_call).toMatchObject({ id: 'call_fix_1', name: 'terminal', origin: 'completion' });
    expect(a.tool_call).not.toHaveProperty('function');
    expect(a.parent_id).toBeDefined();
    expect(fixture.events.user_reject_user.input.source).toBe('environment');
    expect(fixture.events.user_reject_hook.input.source).toBe('environment');
  });

  for (const [name, c] of Object.entries(fixture.events)) {
    it(`maps ${name}`, () => {
      const m = newConversationMapping();
      const out = mapEvent(c.input, m, context, options);
      if (c.expected === null) return expect(out).toEqual([]);
      expect(out[0].type).toBe(c.expected.type);
      if (c.expected.subject) expect(out[0].subject).toBe(c.expected.subject);
      if (c.expected.step) expect(out[0].step).toBe(c.expected.step);
      // Every expected field is there with its value (the mapping may add more, such as text).
      for (const [k, v] of Object.entries(c.expected.data)) {
        if (k === 'error') expect((out[0].data as Record<string, { type: string }>).error.type).toBe((v as { type: string }).type);
        else if (k === 'skills') continue;
        else expect(out[0].data?.[k]).toEqual(v);
      }
    });
  }

  it('maps an unknown kind mechanically', () => {
    expect(mapEvent(fixture.fallback.input, newConversationMapping(), context, options)[0].type).toBe(fixture.fallback.expected.type);
    expect(vendorType('UserRejectObservation')).toBe('x.openhands.user_reject.observation');
    expect(vendorType('PauseEvent')).toBe('x.openhands.pause.event');
  });

  for (const [name, t] of Object.entries(fixture.status_transitions)) {
    it(`status ${name}`, () => {
      const m = newConversationMapping();
      if (t.prev !== null) {
        statusMoments(m, 'running', context, options);
        if (t.prev !== 'running') statusMoments(m, t.prev, context, options);
      }
      const out = statusMoments(m, t.next, context, options).map((e) => ({ type: e.type, data: e.data }));
      expect(out.map((e) => e.type)).toEqual(t.expected.map((e) => e.type));
      t.expected.forEach((e, i) => expect(out[i].data).toMatchObject(e.data.prompt ? { kind: e.data.kind } : e.data));
    });
  }
});
