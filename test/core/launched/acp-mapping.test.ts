/**
 * The ACP → AEP mapping against every case of aep/fixtures/mappings/acp.json (at the fixture's
 * posture: capture metadata, attention redacted). Where the host differs from the read-only tee the
 * fixture pins, the test says so and asserts the host's behaviour instead.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { validateEvent } from '../../../main/core/aep/validate-event';
import { machineryType, mapUpdate, newTurnMappingState, permissionRequested, runEnded, runStarted } from '../../../main/core/launched/acp-mapping';
import { AgentEmitter } from '../../../main/core/launched/agent-emitter';
import type { AgentUpdate, PermissionAsk } from '../../../main/core/launched/driver';
import type { MappedEvent, MappingContext } from '../../../main/core/vendors/types';
import type { EmitterLink } from '../../../main/core/relay/emitter-link';

interface Moment {
  input: { kind: string; method: string; params?: Record<string, unknown>; result?: Record<string, unknown> };
  expected: { type: string; data: Record<string, unknown>; subject?: string }[];
}
const fixture = JSON.parse(readFileSync(new URL('../../../../shared/aep/fixtures/mappings/acp.json', import.meta.url), 'utf8')) as {
  moments: Record<string, Moment>;
  fallback: Moment;
};

const context: MappingContext = { capture: { default: 'metadata', attention: 'redacted' }, redact: (t) => t, newRunId: () => 'run-1', permissionLoop: true };
const link = { claim() {}, release() {}, emit: async () => undefined, onCommand: () => () => undefined, close() {} } as unknown as EmitterLink;
let n = 0;
const emitter = new AgentEmitter('qwen-code', link, 1, () => Date.parse('2026-12-01T10:00:00Z'), () => `01KMAP${String(++n).padStart(20, '0')}`);

/** The events our mapping produces for a fixture moment (null: the host does not map this moment purely). */
function produce(name: string, m: Moment): MappedEvent[] | null {
  const state = newTurnMappingState();
  state.run = 'run-1';
  const { input } = m;
  if (input.kind === 'request' && input.method === 'session/prompt') {
    const prompt = input.params?.prompt as { text: string }[];
    return [runStarted('run-1', prompt, prompt[0].text, context)];
  }
  if (input.kind === 'request' && input.method === 'session/request_permission') return [permissionRequested(input.params as unknown as PermissionAsk, context, 'run-1')];
  if (input.kind === 'response' && input.method === 'session/prompt') return [runEnded({ stopReason: String(input.result?.stopReason), raw: {} }, state, context)];
  if (input.kind === 'notification' && input.method === 'session/update') {
    const update = (input.params as { update: AgentUpdate }).update;
    if (name === 'update_tool_completed' || name === 'update_tool_failed' || name === 'update_tool_in_progress') state.tools.set(String(update.toolCallId), { name: String(update.title), input: undefined, settled: false });
    return mapUpdate(update, state, context);
  }
  if (input.kind === 'request' || input.kind === 'notification') return [{ type: machineryType(input.method), capture: 'metadata', data: {} }];
  return null;
}

/** Moments the host produces elsewhere, and how they differ from the tee's pins. */
const HOST_SIDE: Record<string, string> = {
  response_session_new: 'session.started is emitted by the host with client = the agent as it reported itself (host-mock-agent.test.ts)',
  response_permission_selected: 'the host answers: attention.answered via "control", cause = the respond command (host-mock-agent.test.ts)',
  response_permission_cancelled: 'the host dismisses open requests on cancel / end: attention.resolved dismissed (launched-session.ts)',
};

describe('acp.json mapping cases', () => {
  const cases = [...Object.entries(fixture.moments), ['fallback', fixture.fallback] as [string, Moment]];
  it('covers every case of the fixture', () => {
    expect(cases.length).toBeGreaterThanOrEqual(20);
  });
  for (const [name, moment] of cases) {
    it(name, () => {
      const events = produce(name, moment);
      if (events === null) {
        expect(HOST_SIDE[name], `no pure mapping and no host-side note for ${name}`).toBeDefined();
        return;
      }
      expect(events.map((e) => e.type)).toEqual(moment.expected.map((e) => e.type));
      moment.expected.forEach((want, i) => {
        const got = events[i];
        if (want.type === 'attention.requested') {
          // Host difference: the card is answerable, so it carries the options (ids verbatim) and respond_via control.
          expect(got.data).toMatchObject(want.data);
          expect(got.data).toMatchObject({ options: [{ id: 'allow_once' }, { id: 'reject_once' }], respond_via: ['control'] });
        } else expect(got.data).toEqual(want.data);
        if (want.subject !== undefined) expect(got.subject).toBe(want.subject);
        const [stamped] = emitter.stampMapped('sess_1', [got]);
        const valid = validateEvent(stamped);
        expect(valid.ok, valid.ok ? '' : valid.error.message).toBe(true);
      });
    });
  }

  it('keeps assistant text for run.finished.summary only at redacted and above', () => {
    const chunk = fixture.moments.update_agent_chunk.input.params as { update: AgentUpdate };
    for (const [ceiling, summary] of [['metadata', undefined], ['redacted', 'thinking...']] as const) {
      const state = newTurnMappingState();
      state.run = 'r';
      expect(mapUpdate(chunk.update, state, context)).toEqual([]);
      const end = runEnded({ stopReason: 'end_turn', raw: {} }, state, { ...context, capture: { default: ceiling, attention: 'redacted' } });
      expect(end.data?.summary).toBe(summary);
    }
  });

  it('synthesizes the permission prompt from structure below redacted', () => {
    const ask = fixture.moments.request_permission.input.params as unknown as PermissionAsk;
    const card = permissionRequested(ask, { ...context, capture: { default: 'metadata', attention: 'metadata' } }, null);
    expect(card.data).toMatchObject({ prompt: 'Permission requested: execute', options: [{ id: 'allow_once', label: 'allow_once' }, { id: 'reject_once', label: 'reject_once' }] });
  });
});

describe('a tool call announced without its input', () => {
  it('carries the input once, on x.acp.tool_call.update, gated like the request (Claude Code sends `rawInput: {}` first)', () => {
    for (const [ceiling, want] of [
      ['redacted', { args_redacted: { command: 'echo hi' } }],
      ['metadata', {}],
    ] as const) {
      const state = newTurnMappingState();
      state.run = 'r';
      const at: MappingContext = { ...context, capture: { default: ceiling, attention: 'redacted' } };
      const [requested] = mapUpdate({ sessionUpdate: 'tool_call', toolCallId: 't1', title: 'Terminal', kind: 'execute', status: 'pending', rawInput: {} }, state, at);
      expect(requested.data).not.toHaveProperty('args_redacted.command');
      const late = mapUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 't1', title: 'echo hi', rawInput: { command: 'echo hi' } }, state, at);
      expect(late).toHaveLength(1);
      expect(late[0]).toMatchObject({ type: 'x.acp.tool_call.update', subject: 't1' });
      expect(late[0].data).toEqual({ args_digest: expect.any(String), ...want });
      const [stamped] = emitter.stampMapped('sess_1', late);
      const valid = validateEvent(stamped);
      expect(valid.ok, valid.ok ? '' : valid.error.message).toBe(true);
      // Said once: a repeat of the same input, or an update with none, adds nothing.
      expect(mapUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 't1', rawInput: { command: 'echo hi' } }, state, at)).toEqual([]);
      expect(mapUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 't1', content: [] }, state, at)).toEqual([]);
    }
  });

  it('adds nothing for a call requested with its input', () => {
    const state = newTurnMappingState();
    state.run = 'r';
    mapUpdate({ sessionUpdate: 'tool_call', toolCallId: 't2', title: 'run tests', status: 'pending', rawInput: { command: 'npm test' } }, state, context);
    expect(mapUpdate({ sessionUpdate: 'tool_call_update', toolCallId: 't2', rawInput: { command: 'npm test -- -u' } }, state, context)).toEqual([]);
  });
});
