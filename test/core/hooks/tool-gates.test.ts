/**
 * Seed 000's VS Code and Hermes rows through the real hook routes and relay, from the vendors'
 * documented payloads (neither installs here): VS Code's UserPromptSubmit and SubagentStart carry
 * steering; its opt-in PreToolUse gate and Hermes's gated pre_tool_call hold the hook, and the
 * reply carries the operator's decision, never steering. With the gate off, VS Code's PreToolUse
 * is an ordinary delivery moment.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { command, Consumer, ManualScheduler, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from './hooks-harness';

let d: HooksDaemon | undefined;
let c: Consumer | undefined;

afterEach(async () => {
  c?.close();
  c = undefined;
  if (d) {
    await d.close();
    removeDataDir(d.dataDir);
    d = undefined;
  }
});

async function setup(): Promise<{ d: HooksDaemon; c: Consumer }> {
  d = await startHooksDaemon({ clock: new TestClock(), scheduler: new ManualScheduler() });
  await fetch(`${d.url}/api/steering`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${d.daemon.tokens.operator}`, 'content-type': 'application/json' },
    body: JSON.stringify({ enabled: true, surface: 'console' }),
  });
  c = await Consumer.open(d.url, d.daemon.tokens.operator);
  return { d, c };
}

/** VS Code's documented hook input (hooks-reference: common fields + the event's own). */
const vscode = (event: string, session: string, extra: Record<string, unknown> = {}) => ({
  timestamp: '2026-07-29T10:00:00.000Z',
  cwd: '/work/app',
  session_id: session,
  hook_event_name: event,
  transcript_path: '/tmp/t.json',
  ...extra,
});
const vscodePreToolUse = (session: string) => vscode('PreToolUse', session, { tool_name: 'run_in_terminal', tool_input: { command: 'rm -rf build' }, tool_use_id: 'tu-1' });

/** Hermes's documented shell-hook wire input. */
const hermes = (event: string, session: string, tool: string | null, extra: Record<string, unknown> = {}) => ({
  hook_event_name: event,
  tool_name: tool,
  tool_input: tool === null ? null : { command: 'rm -rf build' },
  session_id: session,
  cwd: '/work/app',
  profile: 'default',
  extra: { turn_id: `${session}:task:ab12cd34`, ...extra },
});

async function instruct(vendor: string, session: string, text: string): Promise<AepEvent> {
  const cmd = command(`x.${vendor}.control.instruct`, session, { text }, { capture: 'redacted' });
  c!.send(cmd);
  await c!.event((e) => e.cause === cmd.id && e.type.startsWith('control.'));
  return cmd;
}

describe('VS Code agent: seed 000 delivery moments', () => {
  for (const [moment, extra] of [
    ['UserPromptSubmit', { prompt: 'fix the tests' }],
    ['SubagentStart', { agent_id: 'sub-1', agent_type: 'Plan' }],
  ] as const) {
    it(`${moment} carries a queued instruction as additionalContext, then reports it delivered`, async () => {
      const { d } = await setup();
      await postHook(d.url, d.daemon.tokens.hook, 'vscode', vscode('SessionStart', 'v1', { source: 'new' }), { instruct: true });
      const cmd = await instruct('vscode', 'v1', 'Keep the public API');
      const reply = await postHook(d.url, d.daemon.tokens.hook, 'vscode', vscode(moment, 'v1', extra), { instruct: true });
      expect(reply.json).toEqual({ hookSpecificOutput: { hookEventName: moment, additionalContext: 'Keep the public API' } });
      await c!.event((e) => e.type === 'x.vscode.instruction.delivered' && e.cause === cmd.id);
    });
  }

  it('with the gate off, PreToolUse is an ordinary delivery moment', async () => {
    const { d } = await setup();
    await postHook(d.url, d.daemon.tokens.hook, 'vscode', vscode('SessionStart', 'v2', { source: 'new' }), { instruct: true });
    await instruct('vscode', 'v2', 'Prefer make clean');
    const reply = await postHook(d.url, d.daemon.tokens.hook, 'vscode', vscodePreToolUse('v2'), { instruct: true });
    expect(reply.json).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', additionalContext: 'Prefer make clean' } });
  });
});

describe('VS Code agent: the PreToolUse permission gate', () => {
  it('holds the hook with an answerable card; the reply carries the decision and never the queued instruction', async () => {
    const { d } = await setup();
    const opts = { instruct: true, permissions: true };
    await postHook(d.url, d.daemon.tokens.hook, 'vscode', vscode('SessionStart', 'v3', { source: 'new' }), opts);
    const queued = await instruct('vscode', 'v3', 'Use make clean');
    const held = postHook(d.url, d.daemon.tokens.hook, 'vscode', vscodePreToolUse('v3'), opts);
    const request = await c!.event((e) => e.type === 'attention.requested' && e.session === 'v3');
    expect(request.data).toMatchObject({ kind: 'permission', respond_via: ['control'] });
    c!.send(command('control.attention.respond', 'v3', { answer: { text: 'use make clean instead' } }, { subject: request.id, capture: 'redacted' }));
    expect((await held).json).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'use make clean instead' } });
    // The instruction is still queued: the next ordinary delivery moment carries it.
    const next = await postHook(d.url, d.daemon.tokens.hook, 'vscode', vscode('PostToolUse', 'v3', { tool_name: 'run_in_terminal', tool_input: {}, tool_use_id: 'tu-1', tool_response: 'ok' }), opts);
    expect(next.json).toEqual({ hookSpecificOutput: { hookEventName: 'PostToolUse', additionalContext: 'Use make clean' } });
    await c!.event((e) => e.type === 'x.vscode.instruction.delivered' && e.cause === queued.id);
  });

  it('an allow answers permissionDecision allow', async () => {
    const { d } = await setup();
    const held = postHook(d.url, d.daemon.tokens.hook, 'vscode', vscodePreToolUse('v4'), { permissions: true });
    const request = await c!.event((e) => e.type === 'attention.requested' && e.session === 'v4');
    c!.send(command('control.attention.respond', 'v4', { answer: { option: 'allow' } }, { subject: request.id }));
    expect((await held).json).toEqual({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow' } });
  });
});

describe('Hermes: the gated pre_tool_call approval', () => {
  it('holds the gated call; a deny answers { action: "block", message }, never context', async () => {
    const { d } = await setup();
    const opts = { instruct: true, permissions: true };
    await postHook(d.url, d.daemon.tokens.hook, 'hermes', hermes('on_session_start', 'h1', null, { model: 'm', platform: 'cli' }), opts);
    await instruct('hermes', 'h1', 'Stay in the repo');
    const held = postHook(d.url, d.daemon.tokens.hook, 'hermes', hermes('pre_tool_call', 'h1', 'terminal', { tool_call_id: 'tc-1' }), opts);
    const request = await c!.event((e) => e.type === 'attention.requested' && e.session === 'h1');
    expect(request.data).toMatchObject({ kind: 'permission', respond_via: ['control'] });
    c!.send(command('control.attention.respond', 'h1', { answer: { option: 'deny' } }, { subject: request.id }));
    const reply = (await held).json as Record<string, unknown>;
    expect(reply).toEqual({ action: 'block', message: 'Denied by the operator in AEP Companion.' });
    expect(reply).not.toHaveProperty('context');
    // The instruction waits for the one moment Hermes reads context from: the next turn start.
    const turn = await postHook(d.url, d.daemon.tokens.hook, 'hermes', hermes('pre_llm_call', 'h1', null, { user_message: 'go on', is_first_turn: false }), opts);
    expect(turn.json).toEqual({ context: 'Stay in the repo' });
  });

  it('an allow is the empty reply; without the opt-in the call is never held', async () => {
    const { d } = await setup();
    const held = postHook(d.url, d.daemon.tokens.hook, 'hermes', hermes('pre_tool_call', 'h2', 'terminal', { tool_call_id: 'tc-2' }), { permissions: true });
    const request = await c!.event((e) => e.type === 'attention.requested' && e.session === 'h2');
    c!.send(command('control.attention.respond', 'h2', { answer: { option: 'allow' } }, { subject: request.id }));
    expect((await held).json).toEqual({});
    const free = await postHook(d.url, d.daemon.tokens.hook, 'hermes', hermes('pre_tool_call', 'h3', 'terminal', { tool_call_id: 'tc-3' }), {});
    expect(free.json).toEqual({});
    await c!.event((e) => e.type === 'tool.requested' && e.session === 'h3');
    expect(c!.events().some((e) => e.session === 'h3' && e.type === 'attention.requested')).toBe(false);
  });
});
