/**
 * Claude Code launched through the pinned ACP bridge (fetched on demand by the product into the
 * data dir), running the pinned `claude` from PATH via CLAUDE_CODE_EXECUTABLE, against the
 * Anthropic stub: launch → prompt → tool call → run.finished with usage; a permission request
 * answered from an AEP command; cancel mid-turn.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isAnthropicAgentRequest, anthropicToolResults, startAnthropicStub } from '../support/model-stubs/anthropic-stub';
import type { StubServer } from '../support/model-stubs/stub-server';
import { openLaunchRig, type LaunchRig } from './launch-rig';

type Json = Record<string, unknown>;
let rig: LaunchRig | null = null;
let stub: StubServer | null = null;
afterEach(async () => {
  await rig?.close();
  await stub?.close();
  rig = null;
  stub = null;
});

const terminal = (session: string) => (e: Json) => e.session === session && ['run.finished', 'run.failed', 'run.cancelled'].includes(String(e.type));

async function launch(r: LaunchRig, prompt: string): Promise<Json> {
  const res = await r.d.api<Json>('POST', '/api/launch', { agent: 'claude-code', cwd: r.cwd, prompt });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json;
}

describe('Claude Code through the ACP bridge', () => {
  it('launch → prompt → tool call → run.finished with usage; the bridge runs the user\'s claude', async () => {
    stub = await startAnthropicStub([{ shell: 'echo launched-hi' }, { text: 'All done.' }]);
    rig = await openLaunchRig('claude-code', stub, { permissions: { allow: ['Bash'] } });
    const agents = await rig.d.api<Json[]>('GET', '/api/agents');
    const entry = agents.json.find((a) => a.id === 'claude-code') as Json;
    expect(entry).toMatchObject({ installed: true, cliPath: expect.stringMatching(/claude$/) });
    const launched = await launch(rig, 'Run echo launched-hi.');
    expect(launched).toMatchObject({ agent: 'claude-code', capabilities: { agentInfo: { name: '@agentclientprotocol/claude-agent-acp', version: '0.101.0' }, agentCapabilities: { loadSession: true } } });
    const session = String(launched.session);
    const end = await rig.c.waitEvent(terminal(session), 'run end', 150_000);
    expect(end, rig.c.types(session).join(',')).toMatchObject({ type: 'run.finished', data: { stop_reason: 'end_turn' } });
    expect((end.data as Json)['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    const requested = rig.c.of(session).find((e) => e.type === 'tool.requested') as Json;
    expect(requested).toBeDefined();
    expect(rig.c.of(session).find((e) => e.type === 'tool.completed')).toMatchObject({ cause: requested.id });
    expect(stub.requests.some((q) => isAnthropicAgentRequest(q) && anthropicToolResults(q) === 1)).toBe(true);
    // The model requests came from the pinned claude on PATH (CLAUDE_CODE_EXECUTABLE), not the SDK's bundled CLI.
    const agentsUa = stub.requests.filter(isAnthropicAgentRequest).map((q) => String(q.headers['user-agent'] ?? ''));
    expect(agentsUa.length).toBeGreaterThan(0);
    expect(agentsUa.every((ua) => ua.includes('2.1.332')), agentsUa.join(' | ')).toBe(true);
    const sessions = await rig.d.api<Json[]>('GET', '/api/sessions');
    expect(sessions.json.find((s) => s.session === session)).toMatchObject({ origin: 'launched', agent: 'claude-code' });
  });

  it('a permission request is answered from an AEP command (control.attention.respond)', async () => {
    stub = await startAnthropicStub([{ shell: 'touch permission-probe.txt' }, { text: 'All done.' }]);
    rig = await openLaunchRig('claude-code', stub, { permissions: { defaultMode: 'default' } });
    const session = String((await launch(rig, 'Create permission-probe.txt.')).session);
    const card = await rig.c.waitEvent((e) => e.session === session && e.type === 'attention.requested', 'permission card', 40_000);
    const options = (card.data as { options: { id: string; kind: string }[] }).options;
    const allow = options.find((o) => o.kind === 'allow_once') ?? options[0];
    const id = rig.c.command('control.attention.respond', session, { answer: { option: allow.id } }, { subject: card.id });
    expect(await rig.c.ack(id)).toMatchObject({ type: 'control.accepted' });
    await rig.c.waitEvent((e) => e.type === 'attention.answered' && e.cause === id, 'answered');
    const end = await rig.c.waitEvent(terminal(session), 'run end', 150_000);
    expect(end).toMatchObject({ type: 'run.finished' });
    expect(rig.c.types(session)).toContain('tool.completed');
    // The allowed command really ran in the session's directory.
    expect(existsSync(join(rig.cwd, 'permission-probe.txt'))).toBe(true);
  });

  it('control.cancel mid-turn ends the run as run.cancelled, cause-linked', async () => {
    stub = await startAnthropicStub([{ shell: 'echo before-cancel' }, { text: 'never seen' }]);
    rig = await openLaunchRig('claude-code', stub, { permissions: { allow: ['Bash'] } });
    const held = stub.hold((q) => isAnthropicAgentRequest(q) && anthropicToolResults(q) === 1);
    const session = String((await launch(rig, 'Run echo before-cancel.')).session);
    await held.reached;
    const id = rig.c.command('control.cancel', session, { scope: 'run' });
    expect(await rig.c.ack(id)).toMatchObject({ type: 'control.accepted' });
    const end = await rig.c.waitEvent(terminal(session), 'run end', 60_000);
    held.release();
    expect(end).toMatchObject({ type: 'run.cancelled', cause: id });
  });
});
