/** `aep-companion instruct` against a real daemon over a real WebSocket: exit codes 0, 3, 4, 5. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EXIT, run, sendInstruction } from '../../../main/cli/commands/instruct';
import { ccPayload, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from '../hooks/hooks-harness';

let d: HooksDaemon;
beforeEach(async () => {
  d = await startHooksDaemon({ clock: new TestClock() });
  d.parts.killSwitch.set(true, { actor: 'operator', surface: 'api' });
});
afterEach(async () => {
  await d.close();
  removeDataDir(d.dataDir);
});

const start = (session: string) => postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionStart', session), { instruct: true });
const base = () => ({ url: d.url, token: d.daemon.tokens.operator });

describe('aep-companion instruct', () => {
  it('exits 0 once the instruction is accepted, and the audit records the cli surface', async () => {
    await start('s1');
    const outcome = await sendInstruction({ ...base(), session: 's1', text: 'add a test first', wait: false });
    expect(outcome.code).toBe(EXIT.accepted);
    const res = await fetch(`${d.url}/api/audit?action=instruct.accepted`, { headers: { authorization: `Bearer ${d.daemon.tokens.operator}` } });
    const rows = ((await res.json()) as { rows: { commandId: string; surface: string }[] }).rows;
    expect(rows[0]).toMatchObject({ commandId: outcome.commandId, surface: 'cli' });
  });

  it('with --wait exits 0 when the instruction is delivered', async () => {
    await start('s1');
    const waiting = sendInstruction({ ...base(), session: 's1', text: 'deliver me', wait: true, say: (line) => {
      if (line.startsWith('accepted')) void postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('UserPromptSubmit', 's1', { prompt: 'x' }), { instruct: true });
    } });
    const outcome = await waiting;
    expect(outcome).toMatchObject({ code: EXIT.delivered, message: expect.stringContaining('UserPromptSubmit') });
  });

  it('with --wait exits 5 when the instruction is dropped', async () => {
    await start('s1');
    const outcome = await sendInstruction({ ...base(), session: 's1', text: 'never read', wait: true, say: (line) => {
      if (line.startsWith('accepted')) void postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionEnd', 's1', { reason: 'other' }), { instruct: true });
    } });
    expect(outcome).toMatchObject({ code: EXIT.dropped, message: 'dropped (session-ended)' });
  });

  it('exits 3 with the reason when the instruction is rejected', async () => {
    await start('s1');
    const outcome = await sendInstruction({ ...base(), session: 's1', text: '   ', wait: false });
    expect(outcome.code).toBe(EXIT.rejected);
    expect(outcome.message).toMatch(/^rejected \(invalid\)/);
  });

  it('exits 3 when the session is not live', async () => {
    const outcome = await sendInstruction({ ...base(), session: 'nobody', text: 'hello', wait: false });
    expect(outcome).toMatchObject({ code: EXIT.rejected, message: expect.stringContaining('no-route') });
  });

  it('exits 3 when the relay refuses because steering is off', async () => {
    await start('s1');
    d.parts.killSwitch.set(false, { actor: 'operator', surface: 'api' });
    const outcome = await sendInstruction({ ...base(), session: 's1', text: 'hello', wait: false });
    expect(outcome).toMatchObject({ code: EXIT.rejected, message: expect.stringContaining('unsupported') });
  });

  it('exits 4 when no ack arrives within the window', async () => {
    const link = d.daemon.context.relay.attachEmitter({ agent: 'mute', instance: 'test' });
    link.claim('mute-1', { accepts: ['x.mute.control.instruct'] });
    try {
      const outcome = await sendInstruction({ ...base(), session: 'mute-1', text: 'anyone?', wait: false, ackWindowMs: 200 });
      expect(outcome).toMatchObject({ code: EXIT.noAck, message: expect.stringContaining('no acknowledgement') });
    } finally {
      link.close();
    }
  });

  it('exits 1 without the operator token', async () => {
    await start('s1');
    const outcome = await sendInstruction({ ...base(), token: d.daemon.tokens.hook, session: 's1', text: 'hi', wait: false });
    expect(outcome.code).toBe(EXIT.unreachable);
  });

  it('exits 1 when no daemon listens', async () => {
    const outcome = await sendInstruction({ url: 'http://127.0.0.1:9', token: 't', session: 's1', text: 'hi', wait: false });
    expect(outcome).toMatchObject({ code: EXIT.unreachable, commandId: null });
  });

  it('exits 2 with usage for missing arguments', async () => {
    expect(await run(['only-session'])).toBe(EXIT.usage);
  });
});
