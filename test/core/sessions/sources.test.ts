/**
 * The registry's sources beyond the hooks and the launch host: an instruction the hook path queued
 * before another source took the session takes no second route (dropped, `owner-changed`); the
 * record's owner keeps the hooks from claiming the session after a restart; the OpenHands bridge
 * owns the conversations it follows and other sources' facts reach them through it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import type { OwnerPort } from '../../../main/core/sessions/source';
import { acquireAgentPorts } from '../../../main/core/steering/agent-ports';
import { SessionRegistryRepo } from '../../../main/core/store/session-registry-repo';
import type { MappedEvent } from '../../../main/core/vendors/types';
import { ccPayload, command, Consumer, postHook, removeDataDir, startHooksDaemon, type HooksDaemon } from '../hooks/hooks-harness';
import { startRig, sessionEvents, until, type Rig } from '../vendors/openhands/harness';

type Json = Record<string, unknown>;
let d: HooksDaemon | undefined;
let rig: Rig | undefined;
const consumers: Consumer[] = [];
const releases: (() => void)[] = [];

afterEach(async () => {
  for (const release of releases.splice(0)) release();
  for (const c of consumers.splice(0)) c.close();
  if (d) {
    await d.close();
    removeDataDir(d.dataDir);
    d = undefined;
  }
  await rig?.close();
  rig = undefined;
});

const SESSION = 'sess-owner-change';
const LAUNCHED = `aep://localhost/agent/claude-code/launched/${SESSION}`;

async function hooksDaemon(dataDir?: string): Promise<{ d: HooksDaemon; c: Consumer; registry: ReturnType<typeof acquireAgentPorts>['ports']['registry'] }> {
  d = await startHooksDaemon({ dataDir });
  const lease = acquireAgentPorts(d.daemon.context);
  releases.push(() => lease.release());
  const res = await fetch(`${d.url}/api/steering`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${d.daemon.tokens.operator}`, 'content-type': 'application/json' },
    body: JSON.stringify({ enabled: true, surface: 'console' }),
  });
  expect(res.status).toBe(200);
  const c = await Consumer.open(d.url, d.daemon.tokens.operator);
  consumers.push(c);
  return { d, c, registry: lease.ports.registry };
}

const cc = (daemon: HooksDaemon, event: string, extra: Json = {}) =>
  postHook(daemon.url, daemon.daemon.tokens.hook, 'claude-code', ccPayload(event, SESSION, extra), { instruct: true, permissions: true });

/** An owner standing in for the launch host: it records the facts handed to it. */
function launchedPort(got: MappedEvent[]): OwnerPort {
  return {
    kind: 'launched',
    agent: 'claude-code',
    source: LAUNCHED,
    currentRun: () => null,
    emit: (events) => {
      got.push(...events);
      return Promise.resolve();
    },
  };
}

const claimed = async (c: Consumer, session: string): Promise<number> => (await c.roster()).filter((e) => e.session === session).length;

describe('an instruction the hook path queued before another source took the session', () => {
  it('is dropped with owner-changed, once, and no later hook carries it', async () => {
    const { d: daemon, c, registry } = await hooksDaemon();
    await cc(daemon, 'SessionStart', { source: 'startup' });
    const cmd = command('x.claude-code.control.instruct', SESSION, { text: 'queued on the hook path' });
    c.send(cmd);
    expect((await c.event((e) => e.cause === cmd.id && e.type.startsWith('control.'))).type).toBe('control.accepted');
    expect(await claimed(c, SESSION)).toBe(1);

    const got: MappedEvent[] = [];
    registry.own(SESSION, launchedPort(got));
    const dropped = await c.event((e) => e.type === 'x.claude-code.instruction.dropped' && e.cause === cmd.id);
    expect(dropped.data).toMatchObject({ reason: 'owner-changed' });
    const rows = (await (await fetch(`${daemon.url}/api/instructions?session=${SESSION}`, { headers: { authorization: `Bearer ${daemon.daemon.tokens.operator}` } })).json()) as Json[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ state: 'dropped', reason: 'owner-changed' });
    expect(daemon.daemon.context.audit.query({ session: SESSION }).rows.filter((r) => r.action === 'instruct.dropped')).toHaveLength(1);

    // The hooks now enrich the owner: a delivery moment's reply carries nothing, the hook claims nothing.
    expect((await cc(daemon, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_after' })).json).toEqual({});
    expect(got.map((e) => e.type)).toEqual(['tool.requested']);
    expect(await claimed(c, SESSION)).toBe(0);
    const types = c.events().filter((e) => e.session === SESSION).map((e) => e.type);
    expect(types.filter((t) => t.startsWith('x.claude-code.instruction.'))).toEqual(['x.claude-code.instruction.dropped']);
  });
});

describe('a hook-path queue whose session another source took just before a crash', () => {
  it('is dropped with owner-changed when the daemon starts again', async () => {
    const first = await hooksDaemon();
    await cc(first.d, 'SessionStart', { source: 'startup' });
    const cmd = command('x.claude-code.control.instruct', SESSION, { text: 'queued before the crash' });
    first.c.send(cmd);
    expect((await first.c.event((e) => e.cause === cmd.id && e.type.startsWith('control.'))).type).toBe('control.accepted');
    // The owner row committed, the process gone before the hook path heard of it.
    new SessionRegistryRepo(first.d.daemon.context.db).owned({ session: SESSION, kind: 'launched', agent: 'claude-code', source: LAUNCHED, nowMs: Date.now() });
    const dataDir = first.d.dataDir;
    for (const release of releases.splice(0)) release();
    for (const c of consumers.splice(0)) c.close();
    await first.d.close();
    d = undefined;

    const { d: daemon } = await hooksDaemon(dataDir);
    const rows = (await (await fetch(`${daemon.url}/api/instructions?session=${SESSION}`, { headers: { authorization: `Bearer ${daemon.daemon.tokens.operator}` } })).json()) as Json[];
    expect(rows).toMatchObject([{ commandId: cmd.id, state: 'dropped', reason: 'owner-changed' }]);
  });
});

describe('a session the record says another source owns, with no owner live (after a restart)', () => {
  it('is not claimed by its hooks: restored or hooked again, it stays off the roster and its hooks hold nothing', async () => {
    const first = await hooksDaemon();
    await cc(first.d, 'SessionStart', { source: 'startup' });
    first.registry.own(SESSION, launchedPort([]));
    const dataDir = first.d.dataDir;
    for (const release of releases.splice(0)) release();
    for (const c of consumers.splice(0)) c.close();
    await first.d.close();
    d = undefined;

    const { d: daemon, c, registry } = await hooksDaemon(dataDir);
    expect(registry.owner(SESSION)).toBeUndefined();
    expect(registry.storedOwner(SESSION)).toMatchObject({ kind: 'launched', source: LAUNCHED });
    expect(await claimed(c, SESSION)).toBe(0);
    // A hook of that session (resumed outside the companion): its events go out, but no claim and no hold.
    expect((await cc(daemon, 'UserPromptSubmit', { prompt: 'resumed in a terminal' })).json).toEqual({});
    await c.event((e) => e.session === SESSION && e.type === 'run.started');
    expect((await cc(daemon, 'PermissionRequest', { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } })).json).toEqual({});
    expect(await claimed(c, SESSION)).toBe(0);
    const cmd = command('x.claude-code.control.instruct', SESSION, { text: 'nobody holds this session' });
    c.send(cmd);
    const answer = await c.next((f) => (f as AepEvent).cause === cmd.id || (f.type === 'error' && JSON.stringify(f).includes(cmd.id)));
    expect(answer.type).not.toBe('control.accepted');
  });
});

describe('a session the launch host resumes after a restart', () => {
  it('has its hooks wait for the resume to take it, then enrich it: nothing of theirs goes out on their own', async () => {
    const first = await hooksDaemon();
    await cc(first.d, 'SessionStart', { source: 'startup' });
    first.registry.own(SESSION, launchedPort([]));
    const dataDir = first.d.dataDir;
    for (const release of releases.splice(0)) release();
    for (const c of consumers.splice(0)) c.close();
    await first.d.close();
    d = undefined;

    const { d: daemon, c, registry } = await hooksDaemon(dataDir);
    const launching = registry.launch('claude-code');
    const answer = cc(daemon, 'PreToolUse', { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_resumed' });
    // The hook reached the service (the route reports it just before handing it over).
    await until(() => daemon.daemon.context.lastHooks()['claude-code'], 'the hook at the service');
    const got: MappedEvent[] = [];
    registry.own(SESSION, launchedPort(got));
    launching.settle();
    expect((await answer).json).toEqual({});
    expect(got.map((e) => e.type)).toEqual(['tool.requested']);
    expect(c.events().filter((e) => e.session === SESSION && e.type === 'tool.requested')).toEqual([]);
  });
});

describe('the OpenHands bridge as a source', () => {
  it('owns each conversation it follows, merges another source\'s facts into it, and lets go when it ends', async () => {
    rig = await startRig();
    const lease = acquireAgentPorts(rig.daemon.context);
    releases.push(() => lease.release());
    const registry = lease.ports.registry;
    const id = rig.stub.create('Please fix the failing test.');
    rig.stub.step(id);
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'tool.completed');
    const source = `aep://localhost/agent/openhands/session/${id}`;
    expect(registry.owner(id)).toMatchObject({ kind: 'server', agent: 'openhands', source });
    expect(registry.storedOwner(id)).toMatchObject({ kind: 'server', source });
    expect(registry.sources(id).map((r) => r.kind)).toEqual(['server']);

    // Another source's fact: merged as the server's own event of the same session.
    const fact: MappedEvent = { type: 'x.openhands.note.seen', capture: 'metadata', data: { from: 'elsewhere' } };
    expect(await registry.enrich(id, [fact, { type: 'session.started', capture: 'metadata', data: {} }])).toBe(true);
    const note = await rig.c.event((e) => e.session === id && e.type === 'x.openhands.note.seen');
    expect(note.source).toBe(source);
    expect(sessionEvents(rig.c, id).filter((e) => e.type === 'session.started')).toHaveLength(1);
    expect(rig.c.texts.some((t) => t.includes('ambiguous'))).toBe(false);

    rig.stub.delete(id);
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'session.ended');
    await until(() => registry.owner(id) === undefined, 'the bridge lets go of the ended conversation');
    expect(registry.storedOwner(id)).toMatchObject({ kind: 'server' });
  });
});
