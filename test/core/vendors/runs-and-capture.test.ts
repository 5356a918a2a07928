/** Runs synthesized per vendor, tool pairing, causal hints, and the capture ceiling applied per field. */
import { describe, expect, it } from 'vitest';
import { contentDigest } from '../../../main/core/aep';
import { INITIAL_MAPPING_STATE, VENDOR_ADAPTERS } from '../../../main/core/vendors';
import { MAX_OPEN_TOOLS } from '../../../main/core/vendors/runs';
import { mustParse, runSession, testContext } from './mapping-context';

const cc = VENDOR_ADAPTERS['claude-code'];
const s = (payload: Record<string, unknown>) => ({ session_id: 's1', ...payload });

describe('synthesized runs (Claude Code)', () => {
  it('opens a run per prompt, stamps tool events with it and closes it at Stop', () => {
    const { events, state } = runSession(cc, [
      s({ hook_event_name: 'UserPromptSubmit', prompt: 'fix it' }),
      s({
        hook_event_name: 'PreToolUse',
        tool_name: 'Bash',
        tool_use_id: 'tu1',
        tool_input: { command: 'ls' },
      }),
      s({
        hook_event_name: 'PostToolUse',
        tool_name: 'Bash',
        tool_use_id: 'tu1',
        tool_input: {},
        tool_response: 'ok',
      }),
      s({ hook_event_name: 'Stop' }),
    ]);
    expect(events.map((event) => [event.type, event.run])).toEqual([
      ['run.started', 'run-1'],
      ['tool.requested', 'run-1'],
      ['tool.completed', 'run-1'],
      ['run.finished', 'run-1'],
    ]);
    expect(events[2].causeHint).toEqual({ type: 'tool.requested', key: 'tu1' });
    expect(events[3].causeHint).toEqual({ type: 'run.started', key: 'run-1' });
    expect(state).toEqual(INITIAL_MAPPING_STATE);
  });

  it('tracks open tool calls until they settle', () => {
    const { perCall, state } = runSession(cc, [
      s({ hook_event_name: 'UserPromptSubmit', prompt: 'go' }),
      s({ hook_event_name: 'PreToolUse', tool_name: 'Read', tool_use_id: 'a', tool_input: {} }),
      s({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: 'b', tool_input: {} }),
      s({
        hook_event_name: 'PostToolUseFailure',
        tool_name: 'Read',
        tool_use_id: 'a',
        tool_input: {},
        error: 'nope',
      }),
    ]);
    expect([...state.openTools]).toEqual([['b', 'Bash']]);
    expect(perCall[3][0]).toMatchObject({
      type: 'tool.failed',
      data: { error: { type: 'tool_error' } },
    });
  });

  it('keeps at most MAX_OPEN_TOOLS open calls, dropping the oldest, none for a call open already', () => {
    const pre = (id: string) => s({ hook_event_name: 'PreToolUse', tool_name: 'Bash', tool_use_id: id, tool_input: {} });
    const ids = Array.from({ length: MAX_OPEN_TOOLS + 8 }, (_, i) => `t${i}`);
    const prompt = s({ hook_event_name: 'UserPromptSubmit', prompt: 'go' });
    // Past the bound the oldest calls go, in order.
    const grown = runSession(cc, [prompt, ...ids.map(pre)]).state.openTools;
    expect([...grown.keys()]).toEqual(ids.slice(8));
    // t0 asked for again when the table is full: it is open already, so nothing goes.
    const calls = [prompt, ...ids.slice(0, MAX_OPEN_TOOLS).map(pre), pre('t0')];
    const { state } = runSession(cc, calls);
    expect(state.openTools.size).toBe(MAX_OPEN_TOOLS);
    expect([...state.openTools.keys()]).toEqual(ids.slice(0, MAX_OPEN_TOOLS));
    // A settled call leaves the table; the earlier state is not changed by a later call.
    const settled = runSession(cc, [...calls, s({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_use_id: 't0', tool_input: {}, tool_response: 'ok' })]);
    expect(settled.state.openTools.has('t0')).toBe(false);
    expect(state.openTools.has('t0')).toBe(true);
  });

  it('uses the prompt_id Claude Code sends as the run id', () => {
    const { events } = runSession(cc, [
      s({ hook_event_name: 'UserPromptSubmit', prompt: 'go', prompt_id: 'p-42' }),
    ]);
    expect(events[0]).toMatchObject({ type: 'run.started', run: 'p-42', key: 'p-42' });
  });

  it('cancels a run whose Stop never came when the next prompt arrives', () => {
    const { events } = runSession(cc, [
      s({ hook_event_name: 'UserPromptSubmit', prompt: 'one' }),
      s({ hook_event_name: 'UserPromptSubmit', prompt: 'two' }),
    ]);
    expect(events.map((event) => [event.type, event.run, event.data])).toEqual([
      ['run.started', 'run-1', { trigger: 'user' }],
      ['run.cancelled', 'run-1', { by: 'user' }],
      ['run.started', 'run-2', { trigger: 'user' }],
    ]);
  });

  it('emits nothing for PreCompact and session.compacted once at PostCompact', () => {
    const { perCall } = runSession(cc, [
      s({ hook_event_name: 'PreCompact', trigger: 'manual' }),
      s({ hook_event_name: 'PostCompact', trigger: 'manual' }),
    ]);
    expect(perCall).toEqual([
      [],
      [expect.objectContaining({ type: 'session.compacted', data: { trigger: 'manual' } })],
    ]);
  });

  it('ends the session at SessionEnd and resets the mapping state', () => {
    const { events, state } = runSession(cc, [
      s({ hook_event_name: 'UserPromptSubmit', prompt: 'go' }),
      s({ hook_event_name: 'SessionEnd', reason: 'logout' }),
    ]);
    expect(events[1]).toMatchObject({ type: 'session.ended', data: { reason: 'normal' } });
    expect(state).toEqual(INITIAL_MAPPING_STATE);
  });

  it('leaves permission and elicitation notifications to their own hooks', () => {
    const { perCall } = runSession(cc, [
      s({ hook_event_name: 'Notification', notification_type: 'permission_prompt', message: 'x' }),
      s({ hook_event_name: 'Notification', notification_type: 'idle_prompt', message: 'waiting' }),
    ]);
    expect(perCall[0]).toEqual([]);
    expect(perCall[1]).toEqual([
      expect.objectContaining({ type: 'progress.status', subject: 'idle_prompt', data: {} }),
    ]);
  });

  it('declares the permission card answerable over control only while the permission loop is on', () => {
    const payload = s({
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'ls' },
    });
    const on = runSession(cc, [payload], testContext({ permissionLoop: true })).events[0];
    const off = runSession(cc, [payload], testContext({ permissionLoop: false })).events[0];
    expect(on.data?.respond_via).toEqual(['control']);
    expect(off.data?.respond_via).toEqual(['oob']);
  });
});

describe('runs on the other vendors', () => {
  it('Codex uses turn_id as the run and cancels a stale turn at the next prompt', () => {
    const { events } = runSession(VENDOR_ADAPTERS.codex, [
      s({ hook_event_name: 'UserPromptSubmit', turn_id: 't1', prompt: 'a' }),
      s({
        hook_event_name: 'PreToolUse',
        turn_id: 't1',
        tool_name: 'shell',
        tool_use_id: 'c',
        tool_input: {},
      }),
      s({ hook_event_name: 'UserPromptSubmit', turn_id: 't2', prompt: 'b' }),
      s({ hook_event_name: 'Stop', turn_id: 't2' }),
    ]);
    expect(events.map((event) => [event.type, event.run])).toEqual([
      ['run.started', 't1'],
      ['tool.requested', 't1'],
      ['run.cancelled', 't1'],
      ['run.started', 't2'],
      ['run.finished', 't2'],
    ]);
  });

  it('Qwen Code keeps one run through the mid-turn UserPromptSubmit calls with an empty prompt', () => {
    const { events, perCall } = runSession(VENDOR_ADAPTERS['qwen-code'], [
      s({ hook_event_name: 'UserPromptSubmit', prompt: 'refactor' }),
      s({
        hook_event_name: 'PreToolUse',
        tool_name: 'run_shell_command',
        tool_use_id: 'x',
        tool_input: {},
      }),
      s({ hook_event_name: 'UserPromptSubmit', prompt: '' }),
      s({ hook_event_name: 'Stop' }),
    ]);
    expect(perCall[2]).toEqual([]);
    expect(events.map((event) => [event.type, event.run])).toEqual([
      ['run.started', 'run-1'],
      ['tool.requested', 'run-1'],
      ['run.finished', 'run-1'],
    ]);
  });

  it('Hermes uses the real turn id, closes runs per turn and ends the session only at finalize', () => {
    const hermes = VENDOR_ADAPTERS.hermes;
    const { events, perCall } = runSession(hermes, [
      s({ hook_event_name: 'pre_llm_call', extra: { turn_id: 's1:t1:aa', user_message: 'hi' } }),
      s({ hook_event_name: 'on_session_end', extra: { turn_id: 's1:t1:aa', completed: true } }),
      s({ hook_event_name: 'on_session_reset', extra: { reason: 'new_session' } }),
      s({ hook_event_name: 'on_session_finalize', extra: { reason: 'shutdown' } }),
    ]);
    expect(events.map((event) => [event.type, event.run])).toEqual([
      ['run.started', 's1:t1:aa'],
      ['run.finished', 's1:t1:aa'],
      ['x.hermes.session.reset', undefined],
      ['session.ended', undefined],
    ]);
    expect(perCall[3][0].data).toEqual({ reason: 'normal' });
  });

  it('VS Code carries compaction at its only (pre) moment', () => {
    const { events } = runSession(VENDOR_ADAPTERS.vscode, [
      s({ hook_event_name: 'PreCompact', trigger: 'auto' }),
    ]);
    expect(events).toEqual([
      expect.objectContaining({ type: 'session.compacted', data: { trigger: 'auto' } }),
    ]);
  });
});

describe('capture ceiling', () => {
  const input = { command: 'deploy --password=hunter2 --dir /home/alice/app', api_key: 'k' };
  const pre = s({
    hook_event_name: 'PreToolUse',
    tool_name: 'Bash',
    tool_use_id: 'tu',
    tool_input: input,
  });
  const at = (level: 'metadata' | 'redacted' | 'full') =>
    cc.map(
      mustParse(cc, pre),
      INITIAL_MAPPING_STATE,
      testContext({ capture: { default: level, attention: level } }),
    ).events[0];

  it('carries only the digest of the original args at metadata', () => {
    expect(at('metadata')).toMatchObject({
      capture: 'metadata',
      data: { tool: { name: 'Bash', call_id: 'tu' } },
    });
    expect(at('metadata').data).toEqual({
      tool: { name: 'Bash', call_id: 'tu' },
      args_digest: contentDigest(input),
    });
  });

  it('adds redacted args at redacted, with the digest still over the original', () => {
    const event = at('redacted');
    expect(event.capture).toBe('redacted');
    expect(event.data?.args_digest).toBe(contentDigest(input));
    expect(event.data?.args_redacted).toEqual({
      command: 'deploy --password=[REDACTED:secret] --dir ~/app',
      api_key: '[REDACTED:secret]',
    });
    expect(event.data?.args).toBeUndefined();
  });

  it('carries the args verbatim only at full', () => {
    expect(at('full')).toMatchObject({ capture: 'full', data: { args: input } });
    expect(at('full').data?.args_redacted).toBeUndefined();
  });

  it('keeps the prompt out of run.started at metadata and redacts it at redacted', () => {
    const payload = s({ hook_event_name: 'UserPromptSubmit', prompt: 'mail bob@example.com' });
    const meta = runSession(cc, [payload]).events[0];
    const redacted = runSession(
      cc,
      [payload],
      testContext({ capture: { default: 'redacted', attention: 'redacted' } }),
    ).events[0];
    expect(meta.data).toEqual({ trigger: 'user' });
    expect(redacted.data).toEqual({ trigger: 'user', prompt: 'mail [REDACTED:pii]' });
  });

  it('synthesizes the permission prompt from structure alone below redacted', () => {
    const payload = s({
      hook_event_name: 'PermissionRequest',
      tool_name: 'Bash',
      tool_input: { command: 'cat /home/alice/.env' },
    });
    const meta = runSession(
      cc,
      [payload],
      testContext({ capture: { default: 'metadata', attention: 'metadata' } }),
    ).events[0];
    const redacted = runSession(cc, [payload]).events[0];
    expect(meta.data?.prompt).toBe('claude-code requests permission: Bash');
    expect(redacted.data?.prompt).toBe('Permission requested: Bash — cat ~/.env');
  });
});

describe('OpenTools (the open-call table a mapping state holds)', () => {
  it('behaves as a bounded Map of call ids, oldest first, under any sequence of opens and settles, and never changes a table it was built from', async () => {
    const { OpenTools } = await import('../../../main/core/vendors/types');
    const fc = (await import('fast-check')).default;
    const max = 4;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), fc.constantFrom('Bash', 'Read'))), (ops) => {
        let table = OpenTools.of(new Map());
        const model = new Map<string, string>();
        for (const [open, id, name] of ops) {
          const before = [...table];
          const next = open ? table.with(id, name, max) : table.without(id);
          expect([...table]).toEqual(before);
          table = next;
          if (open) {
            if (!model.has(id)) while (model.size >= max) model.delete(model.keys().next().value as string);
            model.set(id, name);
          } else model.delete(id);
          expect([...table]).toEqual([...model]);
          expect(table.size).toBe(model.size);
          expect([...table.keys()]).toEqual([...model.keys()]);
          expect([...table.values()]).toEqual([...model.values()]);
          for (const k of ['a', 'f', 'z']) {
            expect(table.has(k)).toBe(model.has(k));
            expect(table.get(k)).toBe(model.get(k));
          }
          const seen: string[] = [];
          table.forEach((v, k) => seen.push(`${k}=${v}`));
          expect(seen).toEqual([...model].map(([k, v]) => `${k}=${v}`));
        }
        expect([...OpenTools.of(model)]).toEqual([...model]);
      }),
      { numRuns: 300 },
    );
  });
});
