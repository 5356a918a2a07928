/**
 * Operating launched sessions, in Node: the composer offers only what the session can do (from
 * its live state and negotiated support), and each message settles from stream events only.
 */
import { describe, expect, test } from 'vitest';
import type { AepEvent } from '../../common/aep/envelope';
import type { SteerSupport } from '../../common/agent-inputs';
import { inputItems, settleInput } from '../../renderer/src/model/input-items';
import { buildTimeline } from '../../renderer/src/model/timeline';
import { blockedReason, sendOptions } from '../../renderer/src/views/composer/composer-options';

let n = 0;
const ev = (type: string, extra: Partial<AepEvent> = {}): AepEvent => ({ aep: '0.1', id: `o${++n}`, type, time: new Date(Date.UTC(2026, 10, 29, 12, 0, n)).toISOString(), source: 'aep://localhost/agents', agent: 'claude-code', session: 's1', ...extra });
const midTurn: SteerSupport = { supports_steering: true, mode: 'mid-turn', badge: 'delivered now', reason: 'promptQueueing', mechanism: 'concurrent-prompt' };
const queueOnly: SteerSupport = { supports_steering: false, mode: 'queue-only', badge: 'queue only', reason: 'the agent advertised no mid-turn input', mechanism: 'none' };

describe('composer options', () => {
  test('idle: one way, which starts the next turn', () => {
    const o = sendOptions({ state: 'idle', support: midTurn, routed: true, steeringOn: true });
    expect(o.map((x) => x.delivery)).toEqual(['queue']);
    expect(o[0].says).toContain('starts its next turn now');
  });

  test('generating with negotiated steering: Send now, Queue, Stop and send; without: no Send now', () => {
    expect(sendOptions({ state: 'generating', support: midTurn, routed: true, steeringOn: true }).map((x) => x.label)).toEqual(['Send now', 'Queue', 'Stop and send']);
    const q = sendOptions({ state: 'generating', support: queueOnly, routed: true, steeringOn: true });
    expect(q.map((x) => x.label)).toEqual(['Queue', 'Stop and send']);
    expect(q[0].says).toContain('queue only');
  });

  test('a queue held by Stop: sending goes first and lifts the hold, and nothing claims to join the stopped turn', () => {
    const idle = sendOptions({ state: 'idle', support: midTurn, routed: true, steeringOn: true, held: 2 });
    expect(idle.map((x) => x.label)).toEqual(['Send']);
    expect(idle[0].says).toBe('The queue is held by Stop: this goes first, starts the next turn now and lifts the hold; the 2 held messages follow it.');
    expect(sendOptions({ state: 'idle', support: midTurn, routed: true, steeringOn: true, held: 1 })[0].says).toContain('the 1 held message follows it.');
    expect(sendOptions({ state: 'idle', support: midTurn, routed: true, steeringOn: true, held: 0 })[0].says).toBe('The queue is held by Stop: this goes first, starts the next turn now and lifts the hold.');
    const ending = sendOptions({ state: 'generating', support: midTurn, routed: true, steeringOn: true, held: 1 });
    expect(ending.map((x) => x.delivery)).toEqual(['queue', 'stop']);
    expect(ending[0].says).toContain('as soon as the stopped turn ends');
    // Not held: the idle sentence is unchanged.
    expect(sendOptions({ state: 'idle', support: midTurn, routed: true, steeringOn: true, held: null })[0].says).toBe('The agent is idle: this starts its next turn now.');
  });

  test('nothing is offered to an ended, starting or unrouted session, and it says why', () => {
    for (const state of ['ended', 'starting', 'resumable'] as const) expect(sendOptions({ state, support: midTurn, routed: true, steeringOn: true })).toEqual([]);
    expect(blockedReason({ state: 'idle', support: null, routed: false, steeringOn: true })).toContain('no route');
  });
});

describe('message settlement from the stream', () => {
  const settled = (outcome: string, reason?: string) => settleInput([ev('control.accepted'), ev('x.claude-code.input.sent'), ev('x.claude-code.input.settled', { data: { outcome, delivery: 'now', ...(reason ? { reason } : {}) } })], { sent: true }).label;

  test('each outcome in the operator’s words', () => {
    expect(settled('steered')).toBe('Steered');
    expect(settled('deferred')).toBe('Sent as next prompt');
    expect(settleInput([ev('x.claude-code.input.settled', { data: { outcome: 'deferred', delivery: 'now' } })], { sent: true })).toMatchObject({ phase: 'prompted', tone: 'accent' });
    expect(settled('degraded')).toBe('Sent as next prompt');
    expect(settled('prompted')).toBe('Sent as next prompt');
    expect(settled('errored')).toBe('Errored — not re-sent');
    expect(settleInput([ev('x.claude-code.input.queued', { data: { position: 0 } }), ev('x.claude-code.input.dropped', { data: { reason: 'withdrawn' } })], { sent: true }).label).toBe('Dropped (withdrawn)');
  });

  test('a message that never left this window, or that the relay refused, says so; the stream wins once it speaks', () => {
    expect(settleInput([], { sent: false }).phase).toBe('unsent');
    expect(settleInput([], { sent: true, refusal: { code: 'no-route' } }).label).toBe('Refused by the relay (no-route)');
    expect(settleInput([ev('control.rejected', { data: { reason: 'invalid', detail: 'steering is off' } })], { sent: true }).label).toBe('Rejected (steering is off)');
  });

  test('the list joins the stream’s commands with this window’s, oldest first, and the timeline folds them into one row', () => {
    const cmd = ev('x.claude-code.control.send_input', { data: { text: 'Keep the API', delivery: 'now' } });
    const settledEv = ev('x.claude-code.input.settled', { cause: cmd.id, seq: 5, data: { outcome: 'steered', delivery: 'now' } });
    const items = inputItems('s1', [cmd, settledEv], new Map(), (id) => (id === cmd.id ? [settledEv] : []));
    expect(items.map((i) => [i.text, i.label])).toEqual([['Keep the API', 'Steered']]);
    const rows = buildTimeline([cmd, settledEv]);
    expect(rows).toHaveLength(1);
    expect(rows[0].status?.label).toBe('Steered');
  });
});

describe('launched session state pushed on the stream', () => {
  test('x.{agent}.session.state replaces the listed state and steer support; an unknown session loads the list', async () => {
    const { ConsoleStore } = await import('../../renderer/src/model/console-store');
    const { ok } = await import('../../common/result');
    const listed = { session: 's1', agent: 'claude-code', source: 'aep://localhost/agent/claude-code/launched/s1', cwd: '/w', state: 'idle', pid: 1, agentInfo: null, capabilities: {}, queued: 0, steer: queueOnly, startedAt: '2026-11-29T12:00:00.000Z', endedAt: null, endReason: null };
    let launchedCalls = 0;
    const api = (async (route: string) => {
      if (route === 'GET /api/launched') {
        launchedCalls++;
        return ok([listed]);
      }
      return ok(null);
    }) as never;
    const store = new ConsoleStore({ baseUrl: 'http://127.0.0.1:1', api, token: () => 't', schedule: () => undefined });
    await store.refreshLaunched();
    expect(launchedCalls).toBe(1);
    store.ingest(ev('x.claude-code.session.state', { data: { state: 'generating', supports_steering: true, mode: 'mid-turn', mechanism: 'concurrent-prompt', badge: 'delivered now', support_reason: 'promptQueueing', steer: 'offered' } }));
    expect(store.launched.get('s1')).toMatchObject({ state: 'generating', steer: { supports_steering: true, mode: 'mid-turn', badge: 'delivered now' } });
    store.ingest(ev('x.claude-code.session.state', { data: { state: 'resumable', reason: 'agent exited with code 3', supports_steering: false, mode: 'queue-only', mechanism: 'concurrent-prompt', badge: 'queue only', support_reason: 'the agent is not connected', steer: 'none' } }));
    expect(store.launched.get('s1')).toMatchObject({ state: 'resumable', endReason: 'agent exited with code 3', steer: { supports_steering: false } });
    expect(launchedCalls).toBe(1);
    store.ingest(ev('x.claude-code.session.state', { session: 's2', data: { state: 'idle' } }));
    expect(launchedCalls).toBe(2);
    // The timeline keeps only the lost connection as history.
    const rows = buildTimeline([ev('x.claude-code.session.state', { data: { state: 'generating' } }), ev('x.claude-code.session.state', { data: { state: 'resumable', reason: 'agent exited' } })]);
    expect(rows.map((r) => r.title)).toEqual(['Agent connection lost · resumable']);
  });
});

describe('a tool call the turn never answered', () => {
  const tool = (type: string, id: string, run: string) => ev(type, { run, data: { tool: { name: 'Bash', call_id: id, input: { command: 'echo mock' } } } });

  test('no longer reads as running once its turn is cancelled; a late result still settles it', () => {
    const started = ev('run.started', { run: 'r1', data: { prompt: 'Write the report' } });
    const rows = buildTimeline([started, tool('tool.requested', 't1', 'r1'), ev('run.cancelled', { run: 'r1' })]);
    expect(rows.find((r) => r.kind === 'tool')?.status).toEqual({ tone: 'warn', label: 'no result (turn cancelled)' });
    const late = buildTimeline([started, tool('tool.requested', 't1', 'r1'), ev('run.cancelled', { run: 'r1' }), tool('tool.completed', 't1', 'r1')]);
    expect(late.find((r) => r.kind === 'tool')?.status?.label).toBe('done');
  });

  test('a finished turn and another run leave it alone', () => {
    const rows = buildTimeline([ev('run.started', { run: 'r1' }), tool('tool.requested', 't1', 'r1'), ev('run.finished', { run: 'r1' }), ev('run.cancelled', { run: 'r2' })]);
    expect(rows.find((r) => r.kind === 'tool')?.status?.label).toBe('running');
  });
});
