/**
 * The console store and its parts in Node: notification batching, the command sender, the
 * roster and the steerability read from it, the bounded per-session maps (ended sessions
 * released), the live stream ring, and the session facts a row shows.
 */
import { describe, expect, test } from 'vitest';
import type { AepEvent } from '../../common/aep/envelope';
import type { SessionSummary } from '../../common/sessions';
import type { VendorProfile } from '../../common/vendors';
import { ok } from '../../common/result';
import type { ApiCall } from '../../renderer/src/api/api-client';
import { CommandSender, MAX_COMMANDS } from '../../renderer/src/model/command-sender';
import { ConsoleStore } from '../../renderer/src/model/console-store';
import { LiveStream } from '../../renderer/src/model/live-stream';
import { RosterState } from '../../renderer/src/model/roster';
import { formatTokens, sessionFacts, ToolCounter } from '../../renderer/src/model/session-facts';
import { sessionRows, steerabilityLabel } from '../../renderer/src/model/session-rows';
import { StoreNotifier } from '../../renderer/src/model/store-notifier';

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

/** A store whose /api answers come from a table, with notifications run by hand. */
function storeWith(sessions: SessionSummary[], keepEnded = 2): { store: ConsoleStore; flushes: (() => void)[] } {
  const flushes: (() => void)[] = [];
  const api = (async (route: string) => {
    if (route === 'GET /api/sessions') return ok(sessions);
    if (route === 'GET /api/vendors') return ok([claude]);
    return ok(null);
  }) as unknown as ApiCall;
  const store = new ConsoleStore({ baseUrl: 'http://127.0.0.1:1', api, token: () => 't', schedule: (fn) => flushes.push(fn), keepEnded });
  return { store, flushes };
}

describe('notifier', () => {
  test('many touches in one frame bump each area once and notify listeners once', () => {
    const queued: (() => void)[] = [];
    const notifier = new StoreNotifier((fn) => queued.push(fn));
    let calls = 0;
    notifier.subscribe(() => calls++);
    for (let i = 0; i < 50; i++) {
      notifier.touch('fleet');
      notifier.touch('sessions');
    }
    expect(queued).toHaveLength(1);
    queued.shift()!();
    expect(calls).toBe(1);
    expect(notifier.version('fleet')).toBe(1);
    expect(notifier.version('sessions')).toBe(1);
    expect(notifier.version('detail')).toBe(0);
  });
});

describe('command sender', () => {
  test('a command without a connection is recorded unsent; an in-band refusal is kept on it', () => {
    let changed = 0;
    const sender = new CommandSender({ instance: 'i', send: () => false, caused: () => [], changed: () => changed++ });
    const c = sender.send({ type: 'x.claude-code.control.instruct', session: 's1', data: { text: 'hi' } }, 'hi');
    expect(c.sent).toBe(false);
    expect(sender.commands.get(c.id)).toBe(c);
    sender.onError({ type: 'error', code: 'no-route', cause: c.id, detail: 'nobody claims s1' });
    expect(c.refusal).toEqual({ code: 'no-route', detail: 'nobody claims s1' });
    expect(changed).toBe(2);
  });

  test('remembers at most MAX_COMMANDS, forgetting the oldest first, and forgets a session on request', () => {
    const sender = new CommandSender({ instance: 'i', send: () => false, caused: () => [], changed: () => {} });
    const first = sender.send({ type: 't.x', session: 'old', data: {} });
    for (let i = 0; i < MAX_COMMANDS + 10; i++) sender.send({ type: 't.x', session: i % 2 ? 'a' : 'b', data: {} });
    expect(sender.commands.size).toBe(MAX_COMMANDS);
    expect(sender.commands.has(first.id)).toBe(false);
    sender.forgetSession('a');
    expect([...sender.commands.values()].every((c) => c.session === 'b')).toBe(true);
  });
});

describe('roster and steerability', () => {
  const roster = (entries: { session: string; accepts?: string[] }[]) => {
    const r = new RosterState(() => true, () => {});
    r.ask();
    r.onFrame({ type: 'roster', id: 'roster-1', entries: entries.map((e) => ({ session: e.session, agent: 'claude-code', control: e.accepts ? { accepts: e.accepts } : undefined })) });
    return r;
  };
  const kind = (r: RosterState | undefined, over: Partial<SessionSummary> = {}, enabled = true) =>
    sessionRows([summary(over)], new Map(), new Map(), [claude], enabled, { roster: r })[0].steerability;

  test('the live declaration decides: claimed with instruct is ready, claimed without is not opted in', () => {
    expect(kind(roster([{ session: 's1', accepts: ['x.claude-code.control.instruct'] }])).kind).toBe('ready');
    expect(kind(roster([{ session: 's1', accepts: ['control.attention.respond'] }])).kind).toBe('not-opted-in');
  });

  test('an opted-in session the relay no longer routes (released at idle expiry) is not shown as ready', () => {
    const s = kind(roster([]));
    expect(s.kind).toBe('released');
    expect(steerabilityLabel(s)).toBe('not reachable now: released after idle');
  });

  test('the kill switch and an unanswered roster say so in words', () => {
    expect(steerabilityLabel(kind(roster([]), {}, false))).toBe('steering is off');
    expect(kind(new RosterState(() => false, () => {})).kind).toBe('checking');
    expect(steerabilityLabel(kind(roster([{ session: 's1', accepts: [] }]), { instructOptIn: false }))).toBe('not opted in: reinstall with steering');
  });

  test('an idle ready session says the instruction reaches it when its next prompt starts', () => {
    const log = { events: [ev('session.started', { seq: 1 })] } as never;
    const row = sessionRows([summary()], new Map([['s1', log]]), new Map(), [claude], true, { roster: roster([{ session: 's1', accepts: ['x.claude-code.control.instruct'] }]) })[0];
    expect(steerabilityLabel(row.steerability)).toBe('next hook (the agent is idle: this reaches it when its next prompt starts)');
  });

  test('a refusal of the roster request is the roster’s, not a command’s', () => {
    const asked: string[] = [];
    const r = new RosterState((id) => (asked.push(id), true), () => {});
    r.ask();
    expect(r.owns(asked[0])).toBe(true);
    r.onError({ type: 'error', code: 'unauthorized', id: asked[0] });
    expect(r.phase).toBe('refused');
    expect(r.owns(asked[0])).toBe(false);
  });
});

describe('bounded per-session maps', () => {
  const ended = (id: string, minute: number) => summary({ session: id, state: 'ended', lastSeen: `2026-11-29T12:${String(minute).padStart(2, '0')}:00.000Z` });

  test('ended sessions beyond the newest few are released, keeping only their resume position and counts', async () => {
    const sessions = [ended('old-1', 1), ended('old-2', 2), ended('new-1', 3), ended('new-2', 4), summary({ session: 'live' })];
    const { store } = storeWith(sessions, 2);
    for (const s of sessions) {
      const start = ev('session.started', { session: s.session, seq: 1 });
      store.ingest(start);
      store.ingest(ev('tool.requested', { session: s.session, seq: 2 }));
      store.ingest(ev('attention.requested', { session: s.session, seq: 3, data: { kind: 'permission', prompt: 'ok?' } }));
      store.ingest(ev('attention.resolved', { session: s.session, seq: 4, subject: `e${n - 1}`, cause: `e${n - 1}`, data: { resolution: 'dismissed' } }));
      if (s.state === 'ended') store.ingest(ev('session.ended', { session: s.session, seq: 5 }));
    }
    expect(store.fleet.size).toBe(5);
    const bySubjectBefore = store.bySubject.size;
    await store.refreshSessions();
    expect([...store.fleet.keys()].sort()).toEqual(['live', 'new-1', 'new-2']);
    expect([...store.released.keys()].sort()).toEqual(['old-1', 'old-2']);
    expect(store.released.get('old-1')).toEqual({ epoch: 0, seq: 5 });
    expect(store.bySubject.size).toBe(bySubjectBefore - 2);
    expect(store.activity.has('old-1')).toBe(false);
    // The tool-call count survives the release; the ids do not.
    expect(store.tools.count('old-1')).toBe(1);
    expect(store.tools.heldSessions).toBe(3);
    // A reconnect resumes released sessions after their last position: nothing is replayed again.
    const positions = (store as unknown as { fleetPositions(): { session: string; seq: number }[] }).fleetPositions();
    expect(positions.find((p) => p.session === 'old-1')).toEqual({ session: 'old-1', epoch: 0, seq: 5 });
    // Their rows still read right.
    const rows = store.rowsOf();
    expect(rows.find((r) => r.summary.session === 'old-2')?.phase).toBe('ended');
    expect(rows.find((r) => r.summary.session === 'old-2')?.toolCalls).toBe(1);
  });

  test('a released session that comes back is tracked again', async () => {
    const sessions = [ended('a', 1), ended('b', 2)];
    const { store } = storeWith(sessions, 1);
    for (const s of sessions) store.ingest(ev('session.ended', { session: s.session, seq: 1 }));
    await store.refreshSessions();
    expect(store.released.has('a')).toBe(true);
    store.ingest(ev('session.started', { session: 'a', seq: 2 }));
    expect(store.released.has('a')).toBe(false);
    expect(store.fleet.get('a')?.size).toBe(1);
  });
});

describe('live stream ring', () => {
  test('subscribes only while a view holds it, keeps each event once and at most `limit`', () => {
    const calls: string[] = [];
    const socket = { subscribe: (id: string) => calls.push(`sub ${id}`), unsubscribe: (id: string) => calls.push(`unsub ${id}`) };
    const stream = new LiveStream(socket as never, () => {}, 3);
    stream.add(ev('tool.requested'));
    expect(stream.events).toHaveLength(0);
    const release = stream.acquire();
    const e = ev('tool.requested');
    stream.add(e);
    stream.add({ ...e });
    for (let i = 0; i < 5; i++) stream.add(ev('run.started'));
    expect(stream.events).toHaveLength(3);
    release();
    expect(stream.events).toHaveLength(0);
    expect(calls).toEqual(['sub live-stream', 'unsub live-stream']);
  });
});

describe('session facts', () => {
  test('the running prompt, reported usage summed over run ends, and runs', () => {
    const events = [
      ev('run.started', { data: { prompt: 'first' } }),
      ev('run.finished', { data: { usage: { 'gen_ai.usage.input_tokens': 1200, 'gen_ai.usage.output_tokens': 300 } } }),
      ev('run.started', { data: { prompt: 'second' } }),
    ];
    expect(sessionFacts(events)).toEqual({ currentPrompt: 'second', promptHidden: false, runs: 2, usage: { input: 1200, output: 300 }, title: 'first', model: null, cost: null });
    expect(sessionFacts(events.slice(0, 2)).currentPrompt).toBeNull();
    expect(sessionFacts([ev('run.started', { capture: 'metadata' })])).toMatchObject({ currentPrompt: null, promptHidden: true, usage: null });
    expect(formatTokens(1500)).toBe('1.5k');
  });

  test('tool calls are counted once per event across subscriptions', () => {
    const counter = new ToolCounter();
    const e = ev('tool.requested', { seq: 4 });
    expect(counter.add(e)).toBe(true);
    expect(counter.add({ ...e, capture: 'none', data: undefined })).toBe(false);
    counter.add(ev('tool.requested', { seq: 9 }));
    expect(counter.count('s1')).toBe(2);
    expect(counter.positions()).toEqual([{ session: 's1', epoch: 0, seq: 9 }]);
  });
});
