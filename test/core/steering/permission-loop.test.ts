import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { createLogger } from '../../../main/core/logger';
import { sessionSource } from '../../../main/core/steering/vendor-emitter';
import { vendorAdapter } from '../../../main/core/vendors/index';
import { DEFAULT_CAPTURE_POLICY, type HookCall, type HookReply, type MappingContext } from '../../../main/core/vendors/types';
import { auditSink } from '../../../main/core/steering/audit-sink';
import { PermissionLoop, type Scheduler } from '../../../main/core/steering/permission-loop';
import { steeringFixture, type SteeringFixture } from './steering-fixture';

let f: SteeringFixture;
let loop: PermissionLoop;
let timers: { ms: number; fire: () => void; cancelled: boolean }[];

const schedule: Scheduler = (ms, fire) => {
  const t = { ms, fire, cancelled: false };
  timers.push(t);
  return () => {
    t.cancelled = true;
  };
};
const context: MappingContext = { capture: DEFAULT_CAPTURE_POLICY, redact: (t) => t, newRunId: () => 'run-1', permissionLoop: true };

beforeEach(() => {
  f = steeringFixture();
  timers = [];
  loop = new PermissionLoop({
    acks: f.acks,
    audit: auditSink(f.audit, () => f.clock.now, createLogger('test')),
    clock: () => f.clock.now,
    logger: createLogger('test'),
    sessions: f.sessions,
    holdMs: () => f.settings.get('permissions.holdMs'),
    schedule,
    channel: f.channel,
    adapter: vendorAdapter,
  });
  f.see('claude-code', 's1', { permissions: true });
});
afterEach(() => {
  loop.close();
  f.close();
});

const cc = () => f.channel('claude-code');

/** Holds a Claude Code PermissionRequest for Bash; returns the request event and the pending reply. */
function holdBash(toolName = 'Bash', input: unknown = { command: 'rm -rf build' }): { request: AepEvent; reply: Promise<HookReply>; call: HookCall } {
  const parsed = vendorAdapter('claude-code').parse({ hook_event_name: 'PermissionRequest', session_id: 's1', tool_name: toolName, tool_input: input });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const [request] = cc().stamp('s1', [{ type: 'attention.requested', data: { kind: 'permission' } }]);
  return { request, call: parsed.value, reply: loop.hold('claude-code', sessionSource('claude-code', 's1'), parsed.value, request, context) };
}

const respond = (request: AepEvent, answer: unknown, id = `R${Math.random().toString(36).slice(2)}`): AepEvent =>
  ({
    aep: '0.1',
    id,
    type: 'control.attention.respond',
    time: '2026-11-29T10:00:00.000Z',
    source: 'aep://test/console',
    agent: 'operator',
    session: 's1',
    subject: request.id,
    cause: request.id,
    surface: 'console',
    data: { answer },
  }) as AepEvent;

describe('PermissionLoop', () => {
  it('stamps the hold deadline on the request and gives up at it, even when the hold starts later', () => {
    const holdMs = f.settings.get('permissions.holdMs');
    const [stamped] = loop.withDeadline([{ type: 'attention.requested', capture: 'metadata', data: { kind: 'permission', prompt: 'Bash' } }, { type: 'tool.requested', capture: 'metadata', data: {} }]);
    expect(stamped.data?.expires_at).toBe(new Date(f.clock.now + holdMs).toISOString());
    expect(loop.withDeadline([{ type: 'attention.requested', capture: 'none' }])[0]).not.toHaveProperty('data');
    // The commit took 1.5 s: the hold still ends at the stamped moment.
    f.clock.now += 1_500;
    const parsed = vendorAdapter('claude-code').parse({ hook_event_name: 'PermissionRequest', session_id: 's1', tool_name: 'Bash', tool_input: {} });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const [request] = cc().stamp('s1', [{ type: 'attention.requested', data: stamped.data }]);
    void loop.hold('claude-code', sessionSource('claude-code', 's1'), parsed.value, request, context);
    expect(timers.map((t) => t.ms)).toEqual([holdMs - 1_500]);
  });

  it('holds the hook and answers allow with the vendor decision, then answered and resolved events', async () => {
    const { request, reply } = holdBash();
    expect(f.sessions.get(sessionSource('claude-code', 's1'), 's1')?.pendingAttention).toBe(1);
    const cmd = respond(request, { option: 'allow' });
    await loop.handleRespond('claude-code', cmd);
    expect(await reply).toEqual({ hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'allow' } } });
    const types = cc().events().map((e) => e.type);
    expect(types).toEqual(['control.accepted', 'attention.answered', 'attention.resolved']);
    const [, answered, resolved] = cc().events();
    expect(answered).toMatchObject({ subject: request.id, cause: cmd.id, data: { answer: { option: 'allow' }, via: 'control' } });
    expect(resolved).toMatchObject({ subject: request.id, cause: answered.id, data: { resolution: 'answered' } });
    expect(f.sessions.get(sessionSource('claude-code', 's1'), 's1')?.pendingAttention).toBe(0);
    expect(f.audit.query({ action: 'permission.decision' }).rows[0]).toMatchObject({ outcome: 'ok', commandId: cmd.id, surface: 'console' });
  });

  it('turns free text into a deny carrying the text as guidance (AEP-0008)', async () => {
    const { request, reply } = holdBash();
    await loop.handleRespond('claude-code', respond(request, { text: 'use the make target instead' }));
    expect(await reply).toEqual({
      hookSpecificOutput: { hookEventName: 'PermissionRequest', decision: { behavior: 'deny', message: 'use the make target instead' } },
    });
  });

  it('treats text naming an option as that option', async () => {
    const { request, reply } = holdBash();
    await loop.handleRespond('claude-code', respond(request, { text: ' Deny ' }));
    expect((await reply).hookSpecificOutput).toMatchObject({ decision: { behavior: 'deny' } });
  });

  it('answers an AskUserQuestion form with the chosen labels as updatedInput', async () => {
    const input = { questions: [{ question: 'Which DB?', header: 'DB', multiSelect: false, options: [{ label: 'SQLite' }, { label: 'Postgres' }] }] };
    const { request, reply } = holdBash('AskUserQuestion', input);
    const fieldId = 'q1';
    const fields = vendorAdapter('claude-code').map(holdBashCall(input), { run: null, openTools: new Map() }, context).events[0]?.data?.fields as { id: string }[] | undefined;
    await loop.handleRespond('claude-code', respond(request, { values: { [fields?.[0]?.id ?? fieldId]: '2' } }));
    const decision = (await reply).hookSpecificOutput as { decision: { behavior: string; updatedInput: { answers: Record<string, string> } } };
    expect(decision.decision.behavior).toBe('allow');
    expect(decision.decision.updatedInput.answers).toEqual({ 'Which DB?': 'Postgres' });
  });

  it('nacks an invalid answer and keeps the request pending for a corrected one', async () => {
    const { request, reply } = holdBash();
    const bad = respond(request, { option: 'maybe' });
    await loop.handleRespond('claude-code', bad);
    expect(cc().events().at(-1)).toMatchObject({ type: 'control.rejected', cause: bad.id, data: { reason: 'invalid' } });
    expect(loop.held).toBe(1);
    await loop.handleRespond('claude-code', respond(request, { option: 'deny' }));
    expect((await reply).hookSpecificOutput).toMatchObject({ decision: { behavior: 'deny' } });
  });

  it('nacks an answer to a request that is no longer held', async () => {
    const { request, reply } = holdBash();
    await loop.handleRespond('claude-code', respond(request, { option: 'allow' }));
    await reply;
    const late = respond(request, { option: 'deny' });
    await loop.handleRespond('claude-code', late);
    expect(cc().events().at(-1)).toMatchObject({ type: 'control.rejected', cause: late.id, data: { reason: 'invalid' } });
  });

  it('re-emits the recorded ack when a respond command is retried, without deciding twice', async () => {
    const { request, reply } = holdBash();
    const cmd = respond(request, { option: 'allow' });
    await loop.handleRespond('claude-code', cmd);
    await reply;
    const before = cc().sent.length;
    await loop.handleRespond('claude-code', cmd);
    expect(cc().sent.length).toBe(before + 1);
    expect(cc().sent.at(-1)).toBe(cc().sent[0]);
  });

  it('times out after the hold window with attention.timeout and an empty reply', async () => {
    const { request, reply } = holdBash();
    expect(timers[0].ms).toBe(f.settings.get('permissions.holdMs'));
    timers[0].fire();
    expect(await reply).toEqual({});
    expect(cc().events().at(-1)).toMatchObject({ type: 'attention.timeout', subject: request.id, data: { after_ms: 50_000 } });
    expect(f.audit.query({ action: 'permission.timeout' }).total).toBe(1);
  });

  it('cancels the hold timer once answered', async () => {
    const { request, reply } = holdBash();
    await loop.handleRespond('claude-code', respond(request, { option: 'allow' }));
    await reply;
    expect(timers[0].cancelled).toBe(true);
  });

  it('frees held hooks with an empty reply when the session ends', async () => {
    const { reply } = holdBash();
    loop.dismissSession('claude-code', 's1');
    expect(await reply).toEqual({});
    expect(cc().events().at(-1)).toMatchObject({ type: 'attention.resolved', data: { resolution: 'dismissed' } });
  });
});

function holdBashCall(input: unknown): HookCall {
  const parsed = vendorAdapter('claude-code').parse({ hook_event_name: 'PermissionRequest', session_id: 's1', tool_name: 'AskUserQuestion', tool_input: input });
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}
