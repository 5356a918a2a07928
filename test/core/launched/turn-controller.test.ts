/** The turn controller's contract (pure): one turn at a time, queue in order, the policy port decides, dropped once. */
import { describe, expect, it } from 'vitest';
import { queueWhileGenerating, TurnController, type TurnInput, type TurnPort } from '../../../main/core/launched/turn-controller';

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

  it('a pause holds the queue when the stopped turn settles; resume sends the next in order', async () => {
    const { log, settle, controller } = rig();
    const heard: string[] = [];
    controller.setObserver({ submitted: () => undefined, dispatched: () => undefined, dropped: () => undefined, paused: (cause) => heard.push(`paused ${cause}`), resumed: (by) => heard.push(`resumed ${by}`) });
    controller.submit(input('a'));
    controller.submit(input('b'));
    controller.submit(input('c'));
    expect(controller.pause('stop-1')).toBe(true);
    expect(controller.pause('stop-2')).toBe(false);
    settle.get('a')!();
    await flush();
    expect(controller.generating).toBe(false);
    expect(controller.paused).toBe(true);
    expect(log).toEqual(['start a', 'queued b @1', 'queued c @2']);
    expect(controller.resume()).toBe(true);
    expect(controller.resume()).toBe(false);
    expect(log.slice(3)).toEqual(['start b']);
    expect(heard).toEqual(['paused stop-1', 'resumed resume']);
  });

  it('a send while held goes first (at once when idle) and lifts the hold; the held ones follow in order', async () => {
    const { log, settle, controller } = rig();
    const heard: string[] = [];
    controller.setObserver({ submitted: (i, d, front) => heard.push(`${i.id} ${d}${front ? ' front' : ''}`), dispatched: () => undefined, dropped: () => undefined, resumed: (by, i) => heard.push(`resumed ${by} ${i?.id}`) });
    controller.submit(input('a'));
    controller.submit(input('b'));
    controller.pause('stop');
    settle.get('a')!();
    await flush();
    expect(controller.submit(input('x'))).toBe('dispatch');
    expect(controller.paused).toBe(false);
    settle.get('x')!();
    await flush();
    expect(log).toEqual(['start a', 'queued b @1', 'start x', 'start b']);
    expect(heard).toEqual(['a dispatch', 'b queue', 'resumed send x', 'x dispatch front']);
  });

  it('a send while the stopped turn has not settled yet is the next turn; synthetic input never lifts a hold', async () => {
    const { log, settle, controller } = rig();
    controller.submit(input('a'));
    controller.submit(input('b'));
    controller.pause('stop');
    expect(controller.submit({ ...input('s'), synthetic: true })).toBe('queue');
    expect(controller.paused).toBe(true);
    expect(controller.submit(input('x'))).toBe('queue');
    settle.get('a')!();
    await flush();
    expect(log).toEqual(['start a', 'queued b @1', 'queued s @2', 'queued x @1', 'start x']);
  });

  it('a held queue still runs a deferred steer the agent already took (adoptFront)', async () => {
    const { log, settle, controller } = rig();
    controller.submit(input('a'));
    controller.submit(input('b'));
    controller.pause('stop');
    controller.adoptFront(input('d'));
    settle.get('a')!();
    await flush();
    expect(log).toEqual(['start a', 'queued b @1', 'start d']);
    settle.get('d')!();
    await flush();
    expect(log).toEqual(['start a', 'queued b @1', 'start d']);
  });
});
