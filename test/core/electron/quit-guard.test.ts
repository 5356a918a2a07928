/** The quit confirmation's decision and its before-quit handler (issue 9), driven with fake-electron's cancellable event. */
import { describe, expect, it } from 'vitest';
import { quitGuard, quitPrompt, type QuitPrompt, type RunningSession } from '../../../main/electron/quit-guard';
import { FakeEvent } from './fake-electron';

const claude = (session: string): RunningSession => ({ session, name: 'Claude Code' });

describe('quitPrompt', () => {
  it('lets the quit go ahead when no launched session runs', () => {
    expect(quitPrompt([])).toBeNull();
  });

  it('asks, naming how many sessions of which agents would end, with Cancel as the default', () => {
    const one = quitPrompt([claude('s1')]);
    expect(one).toMatchObject({ type: 'question', buttons: ['Quit and end them', 'Cancel'], defaultId: 1, cancelId: 1 });
    expect(one?.message).toBe('One launched agent session is still running (Claude Code).');
    const three = quitPrompt([claude('s1'), { session: 's2', name: 'Codex' }, claude('s3')]);
    expect(three?.message).toBe('3 launched agent sessions are still running (Claude Code ×2, Codex).');
    expect(three?.detail).toMatch(/ends them/);
  });
});

/** A guard whose dialog answers are queued by the test; records what happened. */
function rig(running: RunningSession[], answers: (number | Error)[]) {
  const asked: QuitPrompt[] = [];
  const log: string[] = [];
  const pending: Promise<unknown>[] = [];
  const handler = quitGuard({
    running: () => running,
    ask: (prompt) => {
      asked.push(prompt);
      const a = answers.shift() ?? 1;
      const p = a instanceof Error ? Promise.reject(a) : Promise.resolve(a);
      pending.push(p.catch(() => undefined));
      return p;
    },
    quit: () => {
      log.push('quit');
      beforeQuit();
    },
    proceed: () => log.push('proceed'),
    onError: (m) => log.push(`error: ${m}`),
  });
  const events: FakeEvent[] = [];
  const beforeQuit = (): FakeEvent => {
    const e = new FakeEvent();
    events.push(e);
    handler(e);
    return e;
  };
  const settled = async (): Promise<void> => {
    await Promise.all(pending);
    await new Promise((r) => setImmediate(r));
  };
  return { asked, log, events, beforeQuit, settled };
}

describe('quitGuard (before-quit)', () => {
  it('quits at once, without a question, when nothing launched runs', () => {
    const r = rig([], []);
    expect(r.beforeQuit().defaultPrevented).toBe(false);
    expect(r.asked).toEqual([]);
    expect(r.log).toEqual(['proceed']);
  });

  it('holds the quit while sessions run; Cancel keeps the app, confirming quits', async () => {
    const r = rig([claude('s1')], [1, 0]);
    expect(r.beforeQuit().defaultPrevented).toBe(true);
    await r.settled();
    expect(r.asked).toHaveLength(1);
    expect(r.log).toEqual([]);

    expect(r.beforeQuit().defaultPrevented).toBe(true);
    await r.settled();
    expect(r.asked).toHaveLength(2);
    expect(r.log).toEqual(['quit', 'proceed']);
    expect(r.events.at(-1)?.defaultPrevented).toBe(false);
  });

  it('asks once when Quit is chosen again while the question is open', async () => {
    const r = rig([claude('s1')], [1]);
    r.beforeQuit();
    expect(r.beforeQuit().defaultPrevented).toBe(true);
    await r.settled();
    expect(r.asked).toHaveLength(1);
    expect(r.log).toEqual([]);
  });

  it('quits, saying why, when no question could be shown', async () => {
    const r = rig([claude('s1')], [new Error('no display')]);
    r.beforeQuit();
    await r.settled();
    expect(r.log).toEqual(['error: could not ask before quitting: no display', 'quit', 'proceed']);
  });
});
