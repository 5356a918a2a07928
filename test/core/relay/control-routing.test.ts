import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { EmitError } from '../../../main/core/relay/emitter-link';
import {
  makeCommand,
  makeEvent,
  replaySession,
  startTestDaemon,
  WsClient,
  type TestDaemon,
} from './harness';

let d: TestDaemon;
const clients: WsClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await d?.stop();
});
const track = (c: WsClient): WsClient => {
  clients.push(c);
  return c;
};

async function emitterClaiming(
  session: string,
  accepts: string[],
  agent = 'target',
  source = `aep://test/${agent}`,
): Promise<WsClient> {
  const e = track(
    await WsClient.hello(d.url, d.tokens.hook, {
      role: 'emitter',
      identity: { agent, instance: `${agent}/1` },
      capabilities: { control: { accepts } },
    }),
  );
  e.send(makeEvent({ session, agent, source }));
  await e.sync();
  return e;
}

describe('control routing over WS', () => {
  it('forwards a command byte-identically to the one claimant and keeps it in the session history', async () => {
    d = await startTestDaemon();
    const target = await emitterClaiming('ctl', ['control.pause']);
    const sender = track(await WsClient.hello(d.url, d.tokens.operator));
    const text = JSON.stringify(makeCommand('ctl', 'control.pause')).replace('{"aep"', '{ "aep"');
    sender.send(text);
    await target.until((t) => t.texts.includes(text));
    const history = await replaySession(d.url, d.tokens.operator, 'ctl');
    expect(history.map((e) => e.type)).toEqual(['progress.status', 'control.pause']);
    expect(sender.frames.filter((f) => f.type === 'error')).toEqual([]);
  });

  it('refuses a command from a hook-token connection as unauthorized with cause = command id', async () => {
    d = await startTestDaemon();
    const target = await emitterClaiming('ctl', ['control.pause']);
    const command = makeCommand('ctl', 'control.pause');
    target.send(command);
    expect(await target.next((f) => f.type === 'error')).toMatchObject({
      type: 'error',
      cause: command.id,
      code: 'unauthorized',
    });
  });

  it('refuses no-route, unsupported and ambiguous commands without touching the session history', async () => {
    d = await startTestDaemon();
    const sender = track(await WsClient.hello(d.url, d.tokens.operator));
    const nowhere = makeCommand('nobody', 'control.pause');
    sender.send(nowhere);
    expect(await sender.next((f) => f.cause === nowhere.id)).toMatchObject({
      type: 'error',
      code: 'no-route',
    });

    await emitterClaiming('picky', ['control.cancel']);
    const unsupported = makeCommand('picky', 'control.pause');
    sender.send(unsupported);
    expect(await sender.next((f) => f.cause === unsupported.id)).toMatchObject({
      type: 'error',
      code: 'unsupported',
    });

    // Two live connections of the emitter that introduced the session (same source) claim it.
    const first = await emitterClaiming('twice', ['control.pause'], 'one', 'aep://test/shared');
    const second = await emitterClaiming('twice', ['control.pause'], 'two', 'aep://test/shared');
    const ambiguous = makeCommand('twice', 'control.pause');
    sender.send(ambiguous);
    expect(await sender.next((f) => f.cause === ambiguous.id)).toMatchObject({
      type: 'error',
      code: 'ambiguous',
    });
    await first.sync();
    await second.sync();
    expect(first.texts.some((t) => t.includes(ambiguous.id))).toBe(false);
    expect(second.texts.some((t) => t.includes(ambiguous.id))).toBe(false);

    for (const session of ['picky', 'twice']) {
      expect(
        (await replaySession(d.url, d.tokens.operator, session)).some((e) =>
          e.type.startsWith('control.'),
        ),
      ).toBe(false);
    }
    expect(await replaySession(d.url, d.tokens.operator, 'nobody')).toEqual([]);
    expect(d.context.audit.query({ action: 'control.refused' }).total).toBe(3);
  });

  it('refuses commands on a tokenless watch connection as unauthorized', async () => {
    d = await startTestDaemon();
    d.context.settings.set({ 'security.tokenlessWatch': true });
    await emitterClaiming('ctl', ['control.pause']);
    const watcher = track(await WsClient.hello(d.url, null));
    const command = makeCommand('ctl', 'control.pause');
    watcher.send(command);
    expect(await watcher.next((f) => f.cause === command.id)).toMatchObject({
      code: 'unauthorized',
    });
  });
});

describe('in-process emitter links', () => {
  it('claims sessions visibly in the roster, changes its control declaration live, and receives routed commands', async () => {
    d = await startTestDaemon();
    const link = d.context.relay.attachEmitter({
      agent: 'claude-code',
      instance: 'hooks/1',
      emits: ['session'],
    });
    const received: [AepEvent, string][] = [];
    link.onCommand((command, raw) => {
      received.push([command, raw]);
    });
    link.claim('steer', { accepts: [] });
    const sender = track(await WsClient.hello(d.url, d.tokens.operator));
    sender.send({ type: 'roster', id: 'r1' });
    expect(await sender.next((f) => f.id === 'r1')).toMatchObject({
      entries: [
        {
          session: 'steer',
          agent: 'claude-code',
          instance: 'hooks/1',
          control: { accepts: [] },
          emits: ['session'],
        },
      ],
    });
    // Instruction text is redacted-class: the command declares it (AEP-0001 §8.2(a)).
    const refused = { ...makeCommand('steer', 'x.claude-code.control.instruct', { text: 'hi' }), capture: 'redacted' } as AepEvent;
    sender.send(refused);
    expect(await sender.next((f) => f.cause === refused.id)).toMatchObject({ code: 'unsupported' });

    link.claim('steer', { accepts: ['x.claude-code.control.instruct'] });
    const accepted = { ...makeCommand('steer', 'x.claude-code.control.instruct', { text: 'hi' }), capture: 'redacted' } as AepEvent;
    const text = JSON.stringify(accepted);
    sender.send(text);
    await sender.sync();
    await new Promise<void>((resolve) => {
      const check = (): void => (received.length > 0 ? resolve() : void setImmediate(check));
      check();
    });
    expect(received[0][0]).toEqual(accepted);
    expect(received[0][1]).toBe(text);

    link.release('steer');
    sender.send({ type: 'roster', id: 'r2' });
    expect(await sender.next((f) => f.id === 'r2')).toMatchObject({ entries: [] });
    link.close();
  });

  it('resolves emit only after the events are committed, and rejects invalid events', async () => {
    d = await startTestDaemon();
    const link = d.context.relay.attachEmitter({ agent: 'tester', instance: 'x' });
    const event = makeEvent({ session: 'inproc' });
    await link.emit([event]);
    expect([...d.context.eventStore.replay('inproc', null)].map((s) => s.json)).toEqual([
      JSON.stringify(event),
    ]);
    await expect(link.emit(makeEvent({ time: 'soon' }))).rejects.toBeInstanceOf(EmitError);
    link.close();
    await expect(link.emit(makeEvent())).rejects.toMatchObject({ code: 'closed' });
  });

  it('routes an in-process command through the same gate (sendCommand)', async () => {
    d = await startTestDaemon();
    const link = d.context.relay.attachEmitter({ agent: 'tester', instance: 'x' });
    const got: string[] = [];
    link.onCommand((_c, raw) => {
      got.push(raw);
    });
    link.claim('tray', { accepts: ['control.cancel'] });
    expect(
      await d.context.relay.sendCommand(makeCommand('tray', 'control.pause'), { surface: 'tray' }),
    ).toMatchObject({
      ok: false,
      error: { code: 'unsupported' },
    });
    const command = makeCommand('tray', 'control.cancel', { scope: 'session' });
    expect(await d.context.relay.sendCommand(command, { surface: 'tray' })).toEqual({
      ok: true,
      value: undefined,
    });
    expect(got).toEqual([JSON.stringify(command)]);
    expect(d.context.audit.query({ action: 'control.routed' }).rows[0]).toMatchObject({
      surface: 'tray',
      commandId: command.id,
      outcome: 'ok',
    });
  });
});
