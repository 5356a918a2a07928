/**
 * The console's data model in Node: ordering and dedupe of the event log, settlement of commands
 * from the stream, the timeline's pairing, session state and steerability, the inbox lifecycle,
 * and the token's path from the URL fragment to session storage.
 */
import { describe, expect, test } from 'vitest';
import type { AepEvent } from '../../common/aep/envelope';
import type { SessionSummary } from '../../common/sessions';
import type { VendorProfile } from '../../common/vendors';
import { takeFragmentToken } from '../../renderer/src/api/connection-info';
import { backoffDelay } from '../../renderer/src/api/backoff';
import { routeUrl } from '../../renderer/src/api/api-client';
import { attentionItems } from '../../renderer/src/model/attention-items';
import { settle } from '../../renderer/src/model/command-settlement';
import { EventLog } from '../../renderer/src/model/event-log';
import { instructionItems } from '../../renderer/src/model/instructions';
import { sessionRows, steerabilityLabel } from '../../renderer/src/model/session-rows';
import { buildTimeline, TimelineBuilder } from '../../renderer/src/model/timeline';
import { parseRoute } from '../../renderer/src/shell/use-route';

let n = 0;
function ev(type: string, extra: Partial<AepEvent> = {}): AepEvent {
  n++;
  return { aep: '0.1', id: `e${n}`, type, time: new Date(Date.UTC(2026, 10, 29, 12, 0, n)).toISOString(), source: 'aep://localhost/test', agent: 'claude-code', session: 's1', ...extra };
}

const summary = (over: Partial<SessionSummary> = {}): SessionSummary => ({
  source: 'aep://localhost/test',
  session: 's1',
  agent: 'claude-code',
  vendor: 'claude-code',
  cwd: '/home/dev/app',
  state: 'active',
  firstSeen: '2026-11-29T12:00:00.000Z',
  lastSeen: '2026-11-29T12:00:00.000Z',
  lastHook: null,
  instructOptIn: true,
  permissionsOptIn: true,
  pendingAttention: 0,
  eventCount: 0,
  ...over,
});

const claude: VendorProfile = { id: 'claude-code', name: 'Claude Code', deliveryMoments: ['SessionStart', 'UserPromptSubmit', 'PreToolUse', 'PostToolUse'], contextCap: 10_000, sessionEndMoment: 'SessionEnd', permissionMoments: ['PermissionRequest'] };

describe('event log', () => {
  test('keeps sequenced events in (epoch, seq) order even when a late one arrives', () => {
    const log = new EventLog();
    log.add(ev('tool.requested', { seq: 1 }));
    log.add(ev('tool.requested', { seq: 3 }));
    log.add(ev('tool.requested', { seq: 2 }));
    log.add(ev('tool.requested', { seq: 1, epoch: 1 }));
    expect(log.events.map((e) => `${e.epoch ?? 0}:${e.seq}`)).toEqual(['0:1', '0:2', '0:3', '1:1']);
    expect(log.last).toEqual({ epoch: 1, seq: 1 });
  });

  test('drops a redelivered event with the same source and id, but keeps the same id from another source', () => {
    const log = new EventLog();
    const first = ev('run.started', { seq: 1 });
    expect(log.add(first)).toBe(true);
    expect(log.add({ ...first })).toBe(false);
    expect(log.add({ ...first, source: 'aep://localhost/other' })).toBe(true);
    expect(log.size).toBe(2);
    expect(log.duplicates).toBe(1);
  });

  test('keeps seq-less commands in arrival order after what was already held', () => {
    const log = new EventLog();
    log.add(ev('run.started', { seq: 1 }));
    const command = ev('x.claude-code.control.instruct', { agent: 'console' });
    log.add(command);
    log.add(ev('tool.requested', { seq: 2 }));
    expect(log.events.map((e) => e.type)).toEqual(['run.started', 'x.claude-code.control.instruct', 'tool.requested']);
  });
});

describe('command settlement', () => {
  test('is "sent" until the stream acknowledges, and the stream always wins over a local timeout', () => {
    expect(settle([], { sent: true, timedOut: false }).phase).toBe('sent');
    expect(settle([], { sent: true, timedOut: true }).phase).toBe('timeout');
    const accepted = ev('control.accepted', { cause: 'c1' });
    expect(settle([accepted], { sent: true, timedOut: true }).phase).toBe('accepted');
  });

  test('settles delivered with the hook moment and queue time, and dropped with the reason', () => {
    const accepted = ev('control.accepted', { cause: 'c1' });
    const delivered = ev('x.claude-code.instruction.delivered', { cause: 'c1', data: { queued_ms: 1200, moment: 'PostToolUse' } });
    expect(settle([accepted, delivered], null)).toMatchObject({ phase: 'delivered', moment: 'PostToolUse', queuedMs: 1200 });
    const dropped = ev('x.codex.instruction.dropped', { cause: 'c1', data: { reason: 'session-idle' } });
    expect(settle([accepted, dropped], null)).toMatchObject({ phase: 'dropped', reason: 'session-idle' });
  });

  test('reports a rejection with its reason, and a relay refusal frame as refused', () => {
    const rejected = ev('control.rejected', { cause: 'c1', data: { reason: 'unauthorized', detail: 'steering is off' } });
    expect(settle([rejected], { sent: true, timedOut: false })).toMatchObject({ phase: 'rejected', reason: 'unauthorized', detail: 'steering is off' });
    expect(settle([], { sent: true, timedOut: false, refusal: { code: 'no-route' } })).toMatchObject({ phase: 'refused', reason: 'no-route' });
    expect(settle([], { sent: false, timedOut: false }).phase).toBe('unsent');
  });
});

describe('timeline', () => {
  test('pairs a tool request with its result by call id, and folds an instruction with its ack and outcome', () => {
    const events = [
      ev('run.started', { seq: 1, data: { prompt: 'fix it' } }),
      ev('tool.requested', { seq: 2, data: { tool: { name: 'Bash', call_id: 't1' }, args: { command: 'ls' } } }),
      ev('tool.requested', { seq: 3, data: { tool: { name: 'Read', call_id: 't2' } } }),
      ev('tool.completed', { seq: 4, data: { tool: { name: 'Bash', call_id: 't1' }, duration_ms: 40 } }),
      ev('x.claude-code.control.instruct', { id: 'cmd', data: { text: 'use pnpm' } }),
      ev('control.accepted', { seq: 5, cause: 'cmd' }),
      ev('x.claude-code.instruction.delivered', { seq: 6, cause: 'cmd', data: { queued_ms: 300, moment: 'PreToolUse' } }),
      ev('tool.failed', { seq: 7, data: { tool: { name: 'Read', call_id: 't2' }, error: { message: 'no such file' } } }),
      ev('run.finished', { seq: 8, data: { duration_ms: 5000 } }),
    ];
    const rows = buildTimeline(events);
    expect(rows.map((r) => r.kind)).toEqual(['prompt', 'tool', 'tool', 'instruction', 'run-end']);
    expect(rows[1]).toMatchObject({ title: '$ ls', detail: 'Bash', status: { tone: 'ok', label: 'done · 40 ms' } });
    expect(rows[2].status).toEqual({ tone: 'bad', label: 'failed: no such file' });
    expect(rows[3].status?.label).toBe('delivered at PreToolUse · queued 300 ms');
    expect(rows[3].events).toHaveLength(3);
  });

  test('reads queue changes: a queued message shows its edited text, the hold of Stop and its end are rows', () => {
    const rows = buildTimeline([
      ev('x.codex.control.send_input', { id: 'in1', data: { text: 'first text', delivery: 'queue' } }),
      ev('x.codex.input.queued', { seq: 1, cause: 'in1', data: { position: 1, delivery: 'queue' } }),
      ev('x.codex.input.edited', { seq: 2, cause: 'in1', capture: 'redacted', data: { text: 'second text', edits: 1 } }),
      ev('x.codex.input.queue_paused', { seq: 3, cause: 'stop1', data: { reason: 'stop', queued: 1 } }),
      ev('x.codex.input.queue_resumed', { seq: 4, cause: 'stop1', data: { by: 'resume', queued: 1 } }),
      ev('x.claude-code.instruction.reordered', { seq: 5, cause: 'i2', data: { order: ['i2', 'i1'] } }),
    ]);
    expect(rows.map((r) => [r.title, r.detail])).toEqual([
      ['Message', 'second text (edited)'],
      ['Queue paused by Stop', '1 message waiting'],
      ['Queue resumed (Resume)', '1 message released'],
      ['Queue reordered', ''],
    ]);
  });

  test('marks content the capture level left out once per row, counted for one notice, never invented', () => {
    const builder = new TimelineBuilder();
    builder.update({ events: [ev('run.started', { seq: 1, capture: 'metadata' }), ev('tool.requested', { seq: 2, capture: 'metadata', data: { tool: { name: 'Bash' }, args_digest: 'abc' } })], reorders: 0 });
    const rows = builder.rows;
    expect(rows.map((r) => [r.detail, r.uncaptured])).toEqual([
      ['', true],
      ['', true],
    ]);
    expect(builder.uncaptured).toBe(2);
    expect([...builder.uncapturedLevels]).toEqual(['metadata']);
  });
});

describe('sessions and steerability', () => {
  test('derives working, waiting for approval, idle and ended from the stream', () => {
    const state = (events: AepEvent[], over: Partial<SessionSummary> = {}) => {
      const log = new EventLog();
      for (const e of events) log.add(e);
      return sessionRows([summary(over)], new Map([['s1', log]]), new Map(), [claude], true)[0].phase;
    };
    expect(state([ev('session.started', { seq: 1 }), ev('run.started', { seq: 2 })])).toBe('working');
    const request = ev('attention.requested', { seq: 3, data: { kind: 'permission', prompt: 'p' } });
    expect(state([ev('run.started', { seq: 2 }), request])).toBe('waiting');
    expect(state([ev('run.started', { seq: 2 }), request, ev('attention.resolved', { seq: 4, subject: request.id, data: { resolution: 'answered' } }), ev('run.finished', { seq: 5 })])).toBe('idle');
    expect(state([ev('session.ended', { seq: 9 })])).toBe('ended');
    expect(state([], { state: 'ended' })).toBe('ended');
  });

  test('says "steering is off", "not opted in: reinstall with steering", or names the delivery moments', () => {
    const label = (enabled: boolean, optIn: boolean) => steerabilityLabel(sessionRows([summary({ instructOptIn: optIn })], new Map(), new Map(), [claude], enabled)[0].steerability);
    expect(label(false, true)).toBe('steering is off');
    expect(label(true, false)).toBe('not opted in: reinstall with steering');
    expect(label(true, true)).toBe('next hook (the agent is idle: this reaches it when its next prompt starts)');
    const working = new EventLog();
    working.add(ev('run.started', { seq: 1 }));
    expect(steerabilityLabel(sessionRows([summary()], new Map([['s1', working]]), new Map(), [claude], true)[0].steerability)).toBe('next hook (e.g. PreToolUse, PostToolUse, UserPromptSubmit)');
  });
});

describe('inbox and instructions', () => {
  test('an attention request stays open until the stream answers or times it out', () => {
    const log = new EventLog();
    const open = ev('attention.requested', { seq: 1, data: { kind: 'permission', prompt: 'run rm?', options: [{ id: 'allow', label: 'Allow' }, { id: 'deny', label: 'Deny' }] } });
    const late = ev('attention.requested', { seq: 2, data: { kind: 'input', prompt: 'which db?', respond_via: ['oob'] } });
    const timeout = ev('attention.timeout', { seq: 3, subject: late.id });
    for (const e of [open, late, timeout]) log.add(e);
    const { open: o, closed } = attentionItems(new Map([['s1', log]]), new Map([[late.id, [timeout]]]));
    expect(o.map((i) => i.request.id)).toEqual([open.id]);
    expect(o[0].options.map((x) => x.id)).toEqual(['allow', 'deny']);
    expect(closed[0]).toMatchObject({ state: 'timeout', answerable: false });
  });

  test("lists this window's instruction before the stream echoes it, then settles it from the stream", () => {
    const commands = new Map([['c9', { id: 'c9', session: 's1', type: 'x.claude-code.control.instruct', sentAt: '2026-11-29T12:00:00.000Z', text: 'hi', sent: true, timedOut: false }]]);
    expect(instructionItems('s1', [], commands, () => [])[0]).toMatchObject({ text: 'hi', settlement: { phase: 'sent' } });
    const echoed = ev('x.claude-code.control.instruct', { id: 'c9', data: { text: 'hi' }, surface: 'console' });
    const ack = ev('control.accepted', { seq: 1, cause: 'c9' });
    const items = instructionItems('s1', [echoed], commands, (id) => (id === 'c9' ? [ack] : []));
    expect(items).toHaveLength(1);
    expect(items[0].settlement.phase).toBe('accepted');
  });
});

describe('plumbing', () => {
  test('takes the fragment token out of the address bar, and mistakes no route fragment for one', () => {
    let replaced = '';
    const history = { replaceState: (_s: unknown, _t: string, url: string) => (replaced = url) } as unknown as History;
    const location = { hash: '#token=abc123', pathname: '/', search: '?skipWizard=1' } as Location;
    expect(takeFragmentToken(location, history)).toBe('abc123');
    expect(replaced).toBe('/?skipWizard=1#/sessions');
    replaced = '';
    expect(takeFragmentToken({ hash: '#/inbox', pathname: '/', search: '' } as Location, history)).toBeNull();
    expect(takeFragmentToken({ hash: '', pathname: '/', search: '' } as Location, history)).toBeNull();
    expect(replaced).toBe('');
  });

  test('turns a GET request into a query string and other methods into a JSON body', () => {
    expect(routeUrl('GET /api/audit', { action: 'instruct.delivered', before: 40, session: undefined })).toEqual({ method: 'GET', path: '/api/audit?action=instruct.delivered&before=40', body: undefined });
    expect(routeUrl('PUT /api/steering', { enabled: true })).toEqual({ method: 'PUT', path: '/api/steering', body: '{"enabled":true}' });
  });

  test('backs off exponentially with jitter up to a cap, never to zero', () => {
    expect(backoffDelay(0, () => 0)).toBe(125);
    expect(backoffDelay(3, () => 1)).toBe(2000);
    expect(backoffDelay(30, () => 1)).toBe(10_000);
  });

  test('parses the console routes, with slots for the wizard and quick instruct', () => {
    expect(parseRoute('#/sessions/abc%2F1')).toEqual({ name: 'session', id: 'abc/1' });
    expect(parseRoute('#/setup')).toEqual({ name: 'setup' });
    expect(parseRoute('#/quick-instruct?session=s9')).toEqual({ name: 'quick-instruct', session: 's9' });
    expect(parseRoute('#/nowhere')).toEqual({ name: 'sessions' });
  });
});
