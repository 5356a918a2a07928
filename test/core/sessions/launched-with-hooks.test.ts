/**
 * A launched session whose agent's hooks also reach the daemon (the mock ACP agent plus hook calls
 * naming its session, as the user's installed hooks would): one owner, one row, one route; the
 * hooks' facts are merged into the owner's stream by tool call id, their permission request is
 * passed through rather than held, the hook path's verb is taken by the launch host, and the
 * ownership is still on disk after a restart.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon, type HostOverride } from '../launched/agents-harness';
import { acquireAgentPorts } from '../../../main/core/steering/agent-ports';
import { ccPayload, postHook } from '../hooks/hooks-harness';

type Json = Record<string, unknown>;
let d: AgentsDaemon | undefined;
let c: Consumer | undefined;
const dirs: string[] = [];
const homes: string[] = [];
afterEach(async () => {
  c?.close();
  await d?.close();
  for (const dir of dirs.splice(0)) removeAgentsDir(dir);
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true });
  c = undefined;
  d = undefined;
});

async function launched(dataDir?: string, turnDelayMs = 50, host?: HostOverride): Promise<{ d: AgentsDaemon; c: Consumer; session: string }> {
  d = await startAgentsDaemon({}, dataDir, host);
  if (dataDir === undefined) dirs.push(d.dataDir);
  d.daemon.context.settings.set({ 'features.steering': true });
  d.mock('claude-code', `--turn-delay=${turnDelayMs}`);
  c = await Consumer.connect(d.url, d.daemon.tokens.operator);
  const cwd = mkdtempSync(join(tmpdir(), 'aep-launch-cwd-'));
  const res = await d.api<Json>('POST', '/api/launch', { agent: 'claude-code', cwd });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return { d, c, session: String(res.json.session) };
}

const hook = (daemon: AgentsDaemon, payload: Json) => postHook(daemon.url, daemon.daemon.tokens.hook, 'claude-code', payload, { instruct: true, permissions: true });

describe('a launched session the user\'s hooks see too', () => {
  it('is one owner, one row and one route; the hooks\' facts merge into it, once each', async () => {
    const { d: daemon, c: consumer, session } = await launched();
    await consumer.waitEvent((e) => e.session === session && e.type === 'session.started', 'owner session.started');
    expect((await hook(daemon, ccPayload('SessionStart', session, { source: 'startup' }))).status).toBe(200);
    const pre = ccPayload('PreToolUse', session, { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_use_id: 'toolu_hook_only' });
    await hook(daemon, pre);
    await hook(daemon, pre);
    await hook(daemon, ccPayload('PostToolUse', session, { tool_name: 'Bash', tool_input: { command: 'ls' }, tool_response: { stdout: 'a' }, tool_use_id: 'toolu_hook_only' }));
    // A permission request the hook could hold is passed through at once: the owner raises the one card.
    const permission = await hook(daemon, ccPayload('PermissionRequest', session, { tool_name: 'Bash', tool_input: { command: 'rm -rf build' } }));
    expect(permission.json).toEqual({});

    const events = consumer.of(session);
    expect(events.filter((e) => e.type === 'session.started')).toHaveLength(1);
    expect(events.filter((e) => e.type === 'attention.requested')).toHaveLength(0);
    const tool = events.filter((e) => ((e.data as Json | undefined)?.tool as Json | undefined)?.call_id === 'toolu_hook_only');
    expect(tool.map((e) => e.type)).toEqual(['tool.requested', 'tool.completed']);
    expect(tool[1].cause).toBe(tool[0].id);
    for (const e of tool) expect(e).toMatchObject({ subject: 'toolu_hook_only', source: `aep://localhost/agent/claude-code/launched/${session}` });
    expect(new Set(events.map((e) => e.source))).toEqual(new Set([`aep://localhost/agent/claude-code/launched/${session}`]));

    const roster = await consumer.roster();
    const entries = (roster.entries as Json[]).filter((e) => e.session === session);
    expect(entries).toHaveLength(1);
    expect((entries[0].control as { accepts: string[] }).accepts).toEqual(expect.arrayContaining(['x.claude-code.control.send_input', 'x.claude-code.control.instruct']));
    const sessions = await daemon.api<Json[]>('GET', '/api/sessions');
    expect(sessions.json.filter((s) => s.session === session)).toHaveLength(1);

    // The hook path's verb takes one route: the launch host's prompt; the hook's next reply carries nothing.
    const id = consumer.command('x.claude-code.control.instruct', session, { text: 'Use short answers.' }, { capture: 'redacted' });
    expect(await consumer.ack(id)).toMatchObject({ type: 'control.accepted' });
    const run = await consumer.waitEvent((e) => e.cause === id && e.type === 'run.started', 'the instruction as a prompt');
    await consumer.waitEvent((e) => e.run === run.run && e.type === 'run.finished', 'its run end');
    expect((await hook(daemon, ccPayload('UserPromptSubmit', session, { prompt: 'next' }))).json).toEqual({});
    expect(consumer.types(session).filter((t) => t.includes('.instruction.'))).toEqual([]);
  });

  it('Stop reaches the launch host: the running turn is cancelled, cause-linked, with the hooks installed', async () => {
    const { d: daemon, c: consumer, session } = await launched(undefined, 60_000);
    await hook(daemon, ccPayload('SessionStart', session, { source: 'startup' }));
    const prompt = consumer.command('x.claude-code.control.send_input', session, { text: 'a long turn', delivery: 'queue' }, { capture: 'redacted' });
    expect(await consumer.ack(prompt)).toMatchObject({ type: 'control.accepted' });
    await consumer.waitEvent((e) => e.cause === prompt && e.type === 'run.started', 'the turn');
    await hook(daemon, ccPayload('UserPromptSubmit', session, { prompt: 'a long turn' }));
    const stop = consumer.command('control.cancel', session, { scope: 'run' });
    expect(await consumer.ack(stop)).toMatchObject({ type: 'control.accepted' });
    await consumer.waitEvent((e) => e.session === session && e.type === 'run.cancelled' && e.cause === stop, 'run.cancelled caused by the Stop');
    expect(consumer.frames.filter((f) => f.type === 'error')).toEqual([]);
  });

  it('keeps its owner across a restart: one row still, and the hooks of the now unowned session speak for it on their own without claiming it', async () => {
    const first = await launched();
    const { session } = first;
    await hook(first.d, ccPayload('SessionStart', session, { source: 'startup' }));
    const dataDir = first.d.dataDir;
    first.c.close();
    await first.d.close();
    c = undefined;
    d = undefined;
    dirs.push(dataDir);
    d = await startAgentsDaemon({}, dataDir);
    const owner = d.daemon.context.db.prepare('SELECT kind, source FROM session_registry WHERE session = ? AND owner = 1').all(session);
    expect(owner).toEqual([{ kind: 'launched', source: `aep://localhost/agent/claude-code/launched/${session}` }]);
    const rows = await d.api<Json[]>('GET', '/api/sessions');
    expect(rows.json.filter((s) => s.session === session)).toHaveLength(1);
    // No live owner after the restart: a hook of that session (resumed in a terminal) is not swallowed,
    // but the hooks claim nothing the record says the launch host holds: no second route, still one row.
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    expect(((await c.roster()).entries as Json[]).filter((e) => e.session === session)).toHaveLength(0);
    await hook(d, ccPayload('UserPromptSubmit', session, { prompt: 'resumed in a terminal' }));
    await c.waitEvent((e) => e.session === session && e.type === 'run.started' && String(e.source).includes('/session/'), 'the hook\'s own run.started');
    expect(((await c.roster()).entries as Json[]).filter((e) => e.session === session)).toHaveLength(0);
    expect((await d.api<Json[]>('GET', '/api/sessions')).json.filter((s) => s.session === session)).toHaveLength(1);
  });

  it('merges its transcript into the owner: what the agent\'s protocol already said is dropped, the rest goes out as the owner\'s', async () => {
    // Its own home (removed at the end; `dirs` removes a data directory's parent).
    const home = mkdtempSync(join(tmpdir(), 'aep-launch-home-'));
    homes.push(home);
    const host: HostOverride = { home, path: process.env.PATH ?? '', processEnv: {}, runtime: { path: process.execPath, electron: false } };
    const { d: daemon, c: consumer, session } = await launched(undefined, 50, host);
    await consumer.waitEvent((e) => e.session === session && e.type === 'session.started', 'owner session.started');
    const dir = join(home, '.claude', 'projects', 'proj');
    mkdirSync(dir, { recursive: true });
    const transcript = join(dir, `${session}.jsonl`);
    const lines = [
      { type: 'assistant', message: { id: 'msg_1', role: 'assistant', model: 'claude-x', content: [{ type: 'text', text: 'REPLY-FROM-TRANSCRIPT' }], usage: { input_tokens: 3, output_tokens: 2 } } },
      { type: 'summary', summary: 'TITLE-FROM-TRANSCRIPT' },
    ];
    writeFileSync(transcript, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    await hook(daemon, ccPayload('Stop', session, { transcript_path: transcript }));
    const titled = await consumer.waitEvent((e) => e.session === session && e.type === 'x.claude-code.session.titled', 'the transcript title');
    expect(titled.source).toBe(`aep://localhost/agent/claude-code/launched/${session}`);
    // Read in the same pass as the title: the reply, which ACP carries, never went out a second time.
    const types = consumer.types(session);
    expect(types.filter((t) => t === 'x.claude-code.message.replied' || t === 'x.claude-code.usage.reported')).toEqual([]);
    expect(new Set(consumer.of(session).map((e) => e.source))).toEqual(new Set([`aep://localhost/agent/claude-code/launched/${session}`]));
    const lease = acquireAgentPorts(daemon.daemon.context);
    try {
      expect(lease.ports.registry.sources(session).map((r) => r.kind).sort()).toEqual(['hooks', 'launched', 'transcript']);
    } finally {
      lease.release();
    }
  });
});
