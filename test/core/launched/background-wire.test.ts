/**
 * The ACP mapping over recorded wire files (test/fixtures/acp-wire): each run's summary and usage
 * are its own across a deferred hand-off, model output that arrives with no prompt in flight is
 * its own `x.acp.agent.output` event (never the next run's summary or usage), and a tool call
 * settles in the run that requested it even when the settlement arrives during a later run.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { idleOutput, mapUpdate, newTurnMappingState, runEnded, type TurnMappingState } from '../../../main/core/launched/acp-mapping';
import type { AgentUpdate } from '../../../main/core/launched/driver';
import type { MappedEvent } from '../../../main/core/vendors/types';
import { testContext } from '../vendors/mapping-context';

interface WireLine {
  readonly t: number;
  readonly dir: string;
  readonly msg: { id?: number; method?: string; params?: { update?: AgentUpdate }; result?: Record<string, unknown> };
}

const wire = (name: string): WireLine[] => (JSON.parse(readFileSync(new URL(`../../fixtures/acp-wire/${name}.json`, import.meta.url), 'utf8')) as { wire: WireLine[] }).wire;
const context = testContext({ capture: { default: 'full', attention: 'full' } });

/** Replays the agent's lines; `openAt(line)` names the run the host opens at that line (undefined: none). */
function replay(lines: readonly WireLine[], openAt: (line: WireLine) => string | null | undefined): { events: MappedEvent[]; state: TurnMappingState } {
  const state = newTurnMappingState();
  const events: MappedEvent[] = [];
  for (const line of lines) {
    const next = openAt(line);
    if (next !== undefined && next !== state.run) {
      const idle = idleOutput(state, context);
      if (idle) events.push(idle);
      state.run = next;
    }
    if (line.dir !== 'agent->client') continue;
    const { msg } = line;
    if (msg.method === 'session/update' && msg.params?.update) {
      const update = msg.params.update;
      if (update.sessionUpdate !== 'agent_message_chunk') {
        const idle = idleOutput(state, context);
        if (idle) events.push(idle);
      }
      events.push(...mapUpdate(update, state, context));
    } else if (msg.result && typeof msg.result['stopReason'] === 'string' && state.run !== null) {
      events.push(runEnded({ stopReason: msg.result['stopReason'] as string, usage: msg.result['usage'] as never, raw: msg.result }, state, context));
    }
  }
  const idle = idleOutput(state, context);
  if (idle) events.push(idle);
  return { events, state };
}

const finished = (events: readonly MappedEvent[]) => events.filter((e) => e.type === 'run.finished');

describe('background work over the recorded wire', () => {
  const deferred = wire('claude-agent-acp-0.101.0.steer.notool-deferred');

  it('deferred hand-off (claude-agent-acp 0.101.0): each run carries exactly its own answer and usage, nothing is idle output', () => {
    // The host opens run 2 when the deferred prompt becomes its own turn, before its answer arrives.
    const second = replay(deferred, (l) => (l.dir === 'client->agent' && l.msg.method === 'session/prompt' && l.msg.id === 3 ? 'run-1' : l.t === 12410 ? 'run-2' : undefined));
    const ends = finished(second.events);
    expect(ends.map((e) => e.run)).toEqual(['run-1', 'run-2']);
    expect(ends.map((e) => e.data?.['summary'])).toEqual(['stub reply', 'stub reply']);
    expect(ends.map((e) => e.data?.['gen_ai.usage.input_tokens'])).toEqual([1, 1]);
    expect(second.events.filter((e) => e.type === 'x.acp.agent.output')).toHaveLength(0);
  });

  it('output arriving with no prompt in flight (the deferred answer before its run opens) is its own event, not the next summary', () => {
    // Run 2 opens only after the deferred answer's text already arrived: that text had no prompt in flight here.
    const { events } = replay(deferred, (l) => (l.dir === 'client->agent' && l.msg.method === 'session/prompt' && l.msg.id === 3 ? 'run-1' : l.t === 12417 ? 'run-2' : undefined));
    const output = events.filter((e) => e.type === 'x.acp.agent.output');
    expect(output).toHaveLength(1);
    expect(output[0]).toMatchObject({ data: { chars: 'stub reply'.length, in_flight: false, text: 'stub reply' } });
    expect(output[0].run).toBeUndefined();
    const ends = finished(events);
    expect(ends.map((e) => e.run)).toEqual(['run-1', 'run-2']);
    // Run 2's summary holds nothing of it; its usage is only what the agent reported on its settlement.
    expect(ends[1].data?.['summary']).toBeUndefined();
    expect(ends[1].data?.['gen_ai.usage.input_tokens']).toBe(1);
  });

  it('a tool call of the folded run (claude-agent-acp 0.101.0) settles in the run that requested it, even after a later run opened', () => {
    const folded = wire('claude-agent-acp-0.101.0.steer.folded');
    const toolLine = folded.find((l) => l.msg.params?.update?.sessionUpdate === 'tool_call');
    expect(toolLine).toBeDefined();
    const callId = String(toolLine!.msg.params!.update!['toolCallId']);
    const completion = folded.find((l) => l.msg.params?.update?.sessionUpdate === 'tool_call_update' && l.msg.params.update['toolCallId'] === callId && ['completed', 'failed'].includes(String(l.msg.params.update['status'])));
    expect(completion).toBeDefined();
    // Open a later run just before the completion arrives (the hand-off moved on before the tool settled).
    const { events } = replay(folded, (l) => (l.dir === 'client->agent' && l.msg.method === 'session/prompt' && l.msg.id === 3 ? 'run-1' : l === completion ? 'run-2' : undefined));
    const settled = events.find((e) => (e.type === 'tool.completed' || e.type === 'tool.failed') && e.subject === callId);
    expect(settled?.run).toBe('run-1');
  });
});
