// Bad input and faults: server down (visible status, backoff, recovery), a wrong key (401 / close
// 4001: one clear status, no retry storm), an unknown conversation (4004), malformed and oversized
// frames (logged and skipped), an unknown server version, a conversation deleted while watched.
import { afterEach, describe, expect, it } from 'vitest';
import { ConversationWatch } from '../../../../main/core/vendors/openhands/watch';
import { CLOSE_AUTH_FAILED, CLOSE_NOT_FOUND, OpenHandsRest, openEventSocket } from '../../../../main/core/vendors/openhands/client';
import { MAX_FRAME_BYTES } from '../../../../main/core/vendors/openhands/wire';
import { startRig, sessionEvents, until, type Rig } from './harness';
import { StubAgentServer } from './stub-server';

let rig: Rig | undefined;
let extra: StubAgentServer | undefined;
afterEach(async () => {
  await rig?.close();
  await extra?.stop();
  rig = undefined;
  extra = undefined;
});

describe('OpenHands faults', () => {
  it('a server that goes down shows as unreachable, is retried with backoff, and resumes', async () => {
    rig = await startRig();
    const id = rig.stub.create();
    rig.stub.step(id);
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'tool.completed');
    const port = rig.stub.port;
    await rig.stub.stop();
    await rig.bridge.pollNow();
    const down = (await rig.api('GET', '/api/openhands')).body;
    expect(down.state).toBe('unreachable');
    expect(down.reason).toContain('cannot reach');
    const status = await rig.c.event((e) => e.session === id && e.type === 'x.openhands.server.status');
    expect(status.data).toMatchObject({ state: 'unreachable' });
    expect(status.severity).toBe('warning');
    await rig.stub.start(port);
    rig.stub.step(id);
    await rig.bridge.pollNow();
    expect((await rig.api('GET', '/api/openhands')).body.state).toBe('connected');
    await until(() => sessionEvents(rig!.c, id).filter((e) => e.type === 'tool.completed').length === 2 || undefined, 'the step made while down');
  });

  it('a wrong key: one clear unauthorized status and no retry storm', async () => {
    rig = await startRig({ key: 'not-the-key-0000000000' });
    await until(async () => (await rig!.api('GET', '/api/openhands')).body.state === 'unauthorized', 'unauthorized');
    const st = (await rig.api('GET', '/api/openhands')).body;
    expect(st.reason).toContain('401');
    expect(st.reason).toContain('connect again');
    const refusals = rig.stub.refusals;
    await rig.bridge.pollNow();
    await rig.bridge.pollNow();
    expect(rig.stub.refusals).toBe(refusals);
    // The key never reaches the status or the log.
    expect(JSON.stringify(st)).not.toContain('not-the-key');
  });

  it('close 4001 on the socket (key rotated away) stops the watch with a clear status', async () => {
    rig = await startRig();
    const id = rig.stub.create();
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'run.started');
    rig.stub.key = 'rotated-key-000000000000';
    rig.stub.dropSockets();
    await until(async () => (await rig!.api('GET', '/api/openhands')).body.state === 'unauthorized', 'unauthorized after a rotation');
    const refusals = rig.stub.refusals;
    await new Promise((r) => setImmediate(r));
    expect(rig.stub.refusals).toBe(refusals);
  });

  it('an unknown conversation (close 4004) and a deleted one end the session once', async () => {
    extra = new StubAgentServer();
    await extra.start();
    let fatal = '';
    const watch = new ConversationWatch({
      rest: new OpenHandsRest(extra.url, extra.key),
      key: extra.key,
      conversation: '00000000-0000-4000-8000-000000000000',
      cursor: { lastId: null, lastTs: null },
      deliver: async () => undefined,
      skipped: () => undefined,
      fatal: (kind, reason) => (fatal = `${kind}: ${reason}`),
      trouble: () => undefined,
      backoffMs: { initial: 10, max: 10 },
    });
    watch.start();
    await until(() => fatal, 'the fatal report');
    watch.stop();
    expect(fatal).toMatch(/^not-found/);
    // The socket itself: authenticated by its first frame, then 4004 for a conversation it does not know.
    const closed = (key: string) =>
      new Promise<number>((resolve) => openEventSocket(extra!.url, key, '00000000-0000-4000-8000-000000000000', null, { onOpen: () => undefined, onEvent: () => undefined, onSkipped: () => undefined, onClose: (code) => resolve(code) }));
    expect(await closed(extra.key)).toBe(CLOSE_NOT_FOUND);
    expect(await closed('wrong-key-000000000000')).toBe(CLOSE_AUTH_FAILED);

    rig = await startRig();
    const id = rig.stub.create();
    rig.stub.step(id);
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'tool.completed');
    rig.stub.delete(id);
    await rig.bridge.pollNow();
    const ended = await rig.c.event((e) => e.session === id && e.type === 'session.ended');
    expect(ended.data).toMatchObject({ reason: 'killed' });
    const cancelled = sessionEvents(rig.c, id).find((e) => e.type === 'run.cancelled');
    expect(cancelled).toBeDefined();
    await rig.bridge.pollNow();
    expect(sessionEvents(rig.c, id).filter((e) => e.type === 'session.ended')).toHaveLength(1);
    expect(((await rig.c.roster()).find((e) => e.session === id))).toBeUndefined();
  });

  it('malformed and oversized frames are skipped; the stream goes on', async () => {
    rig = await startRig();
    const id = rig.stub.create();
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'run.started');
    await until(() => rig!.stub.conv(id).sockets.size === 1 || undefined, 'the socket');
    rig.stub.sendRaw(id, '{not json');
    rig.stub.sendRaw(id, JSON.stringify({ kind: 'ActionEvent' }));
    rig.stub.sendRaw(id, JSON.stringify({ id: 'big', timestamp: 't', source: 'agent', kind: 'MessageEvent', pad: 'x'.repeat(MAX_FRAME_BYTES) }));
    const after = rig.stub.step(id)!;
    await rig.c.event((e) => e.session === id && e.type === 'tool.requested' && (e.data as { vendor_event_id?: string }).vendor_event_id === after.id);
    expect(sessionEvents(rig.c, id).some((e) => (e.data as { vendor_event_id?: string } | undefined)?.vendor_event_id === 'big')).toBe(false);
    expect(rig.stub.conv(id).sockets.size).toBe(1);
  });

  it('a server version the bridge does not know is refused with a clear message', async () => {
    rig = await startRig({ stub: { version: '2.0.0' } });
    rig.stub.create();
    await rig.bridge.pollNow();
    const st = (await rig.api('GET', '/api/openhands')).body;
    expect(st.state).toBe('unsupported');
    expect(st.reason).toContain('"2.0.0"');
    expect(st.reason).toContain('1.x');
    expect(st.conversations).toBe(0);
  });
});
