/** The turn controller's contract (pure): one turn at a time, queue in order, the policy port decides, dropped once. */
import { describe, expect, it } from 'vitest';
import { queueWhileGenerating, TurnController, type TurnInput, type TurnPort } from '../../../../main/core/agents/launched/turn-controller';

function rig(steer?: boolean) {
  const log: string[] = [];
  const settle = new Map<string, () => void>();
  const port: TurnPort = {
    startTurn: (i) =>
      new Promise<void>((resolve) => {
        log.push(`start ${i.id}`);
        settle.set(i.id, resolve);
      }),
    queued: (i, position) => log.push(`queued ${i.id} @${position}`),
    dropped: (i, reason) => log.push(`dropped ${i.id} ${reason}`),
    ...(steer ? { steer: async (i: TurnInput) => void log.push(`steer ${i.id}`) } : {}),
  };
  return { log, settle, controller: new TurnController(port) };
}
const input = (id: string): TurnInput => ({ id, text: id, delivery: 'queue', submittedAtMs: 0 });
const flush = () => new Promise((r) => setImmediate(r));

describe('TurnController', () => {
  it('dispatches when idle, queues while generating, and runs the queue in submission order', async () => {
    const { log, settle, controller } = rig();
    expect(controller.submit(input('a'))).toBe('dispatch');
    expect(controller.submit(input('b'))).toBe('queue');
    expect(controller.submit(input('c'))).toBe('queue');
    expect(controller.generating).toBe(true);
    settle.get('a')!();
    await flush();
    settle.get('b')!();
    await flush();
    expect(log).toEqual(['start a', 'queued b @1', 'queued c @2', 'start b', 'start c']);
  });

  it('degrades answers it cannot honour: dispatch while generating queues, steer without a port queues', () => {
    const { log, controller } = rig();
    controller.setPolicy({ decide: (i) => (i.id === 'a' ? 'dispatch' : i.id === 'b' ? 'dispatch' : 'steer') });
    controller.submit(input('a'));
    expect(controller.submit(input('b'))).toBe('queue');
    expect(controller.submit(input('c'))).toBe('queue');
    expect(log).toEqual(['start a', 'queued b @1', 'queued c @2']);
  });

  it('hands a steer to the port only while a turn runs', () => {
    const { log, controller } = rig(true);
    controller.setPolicy({ decide: () => 'steer' });
    expect(controller.submit(input('a'))).toBe('dispatch');
    expect(controller.submit(input('b'))).toBe('steer');
    expect(log).toEqual(['start a', 'steer b']);
  });

  it('drops every queued input once, with the reason, and a rejected turn still settles', async () => {
    const { log, controller } = rig();
    controller.submit(input('a'));
    controller.submit(input('b'));
    expect(controller.dropAll('session-ended')).toBe(1);
    expect(controller.dropAll('session-ended')).toBe(0);
    expect(log).toEqual(['start a', 'queued b @1', 'dropped b session-ended']);
    const failing = new TurnController({ startTurn: () => Promise.reject(new Error('died')), queued: () => undefined, dropped: () => undefined });
    failing.submit(input('x'));
    await flush();
    expect(failing.generating).toBe(false);
  });

  it('the default policy keeps order: nothing overtakes a queued input', () => {
    expect(queueWhileGenerating.decide(input('x'), { generating: false, queued: 1 })).toBe('queue');
    expect(queueWhileGenerating.decide(input('x'), { generating: false, queued: 0 })).toBe('dispatch');
  });
});
