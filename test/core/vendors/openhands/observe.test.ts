// A running OpenHands conversation appears as one `openhands` session: replay through REST paging,
// the live socket with first-frame auth, tool events matched by call id, the agent's text, runs from
// the execution status; each vendor event once, across reconnects and a daemon restart.
import { afterEach, describe, expect, it } from 'vitest';
import { startRig, sessionEvents, until, type Rig } from './harness';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const vendorIds = (rig: Rig, id: string): string[] =>
  sessionEvents(rig.c, id)
    .map((e) => (e.data as { vendor_event_id?: string } | undefined)?.vendor_event_id)
    .filter((v): v is string => typeof v === 'string');

describe('observing an OpenHands conversation', () => {
  it('scrubs the session API key from every event, as the daemon\'s own tokens', async () => {
    rig = await startRig();
    await rig.api('PATCH', '/api/settings', { 'capture.ceiling': 'full' });
    const id = rig.stub.create(`my key is ${rig.stub.key}`);
    rig.stub.step(id, { command: `echo ${rig.stub.key}` });
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'tool.completed');
    await rig.bridge.idle();
    // As stored (the capture ceiling is full): the text is there, the key is not.
    const history = JSON.stringify((await rig.api<unknown>('GET', `/api/sessions/history?session=${id}`)).body);
    expect(history).toContain('my key is ');
    expect(history).toContain('echo ');
    expect(history).not.toContain(rig.stub.key);
    expect(JSON.stringify(sessionEvents(rig.c, id))).not.toContain(rig.stub.key);
    expect(JSON.stringify((await rig.api('GET', '/api/openhands')).body)).not.toContain(rig.stub.key);
  });

  it('maps a running conversation into an openhands session with its tool events, text and runs', async () => {
    rig = await startRig();
    const id = rig.stub.create('Please fix the failing test.');
    // Events before the companion attached come through REST paging (more than one page).
    for (let i = 0; i < 60; i++) rig.stub.step(id);
    await rig.bridge.pollNow();
    await until(() => sessionEvents(rig!.c, id).filter((e) => e.type === 'tool.completed').length === 60 || undefined, '60 replayed tool results');
    const live = rig.stub.step(id)!;
    rig.stub.step(id, { finish: 'The test passes now.' });
    const finished = await rig.c.event((e) => e.session === id && e.type === 'run.finished');
    const events = sessionEvents(rig.c, id);
    expect(events[0].type).toBe('session.started');
    expect(events[0].agent).toBe('openhands');
    expect(events.filter((e) => e.type === 'run.started')).toHaveLength(1);
    expect(finished.run).toBe(events.find((e) => e.type === 'run.started')!.run);
    // The live action and its observation, matched by the call id (the observation's cause is the request).
    const req = events.find((e) => e.type === 'tool.requested' && (e.data as { vendor_event_id?: string }).vendor_event_id === live.id)!;
    expect(req.subject).toBe('terminal');
    expect((req.data as { tool: { call_id: string } }).tool.call_id).toBe(live.tool_call_id);
    const done = events.find((e) => e.type === 'tool.completed' && (e.data as { tool: { call_id: string } }).tool.call_id === live.tool_call_id)!;
    expect(done.cause).toBe(req.id);
    // The agent's answer as text (redacted ceiling of the consumer).
    const said = events.filter((e) => e.type === 'x.openhands.message.event').map((e) => e.data as { role: string; text?: string });
    expect(said.at(-1)).toMatchObject({ role: 'assistant', text: 'The test passes now.' });
    // The key never left in the clear: it went in the auth frame only.
    expect(rig.stub.socketFrames.every((f) => (f as { type?: string }).type === 'auth')).toBe(true);
    // Each persisted vendor event exactly once.
    const ids = vendorIds(rig, id);
    expect(new Set(ids).size).toBe(ids.length);
    const persisted = new Set(rig.stub.conv(id).events.map((e) => e.id));
    expect(ids.filter((v) => persisted.has(v))).toHaveLength(persisted.size);
    // The rest are the snapshots sent on subscribe and at the run's end, never persisted.
    const extra = sessionEvents(rig.c, id).filter((e) => !persisted.has((e.data as { vendor_event_id?: string } | undefined)?.vendor_event_id ?? ''));
    expect(extra.filter((e) => (e.data as { vendor_event_id?: string } | undefined)?.vendor_event_id).every((e) => e.type === 'state.snapshot')).toBe(true);
    // The sessions list holds it with the openhands agent.
    const list = await rig.api<{ session: string; agent?: string; vendor?: string }[]>('GET', '/api/sessions');
    expect(JSON.stringify(list.body.find((s) => s.session === id))).toContain('openhands');
  });

  it('resumes after a dropped socket and after a daemon restart without repeating an event', async () => {
    rig = await startRig();
    const id = rig.stub.create();
    rig.stub.step(id);
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'tool.completed');
    rig.stub.dropSockets();
    rig.stub.step(id); // while the socket is down: comes back through REST from the last id
    await until(() => sessionEvents(rig!.c, id).filter((e) => e.type === 'tool.completed').length === 2 || undefined, 'the step made while disconnected');
    await until(() => rig!.stub.conv(id).sockets.size === 1 || undefined, 'the socket is back');
    rig.stub.step(id);
    await until(() => sessionEvents(rig!.c, id).filter((e) => e.type === 'tool.completed').length === 3 || undefined, 'a live step after the reconnect');
    const before = new Set(vendorIds(rig, id));
    const runBefore = sessionEvents(rig.c, id).find((e) => e.type === 'run.started')!.run;
    await rig.bridge.idle();
    await rig.restart();
    const next = rig.stub.step(id)!;
    await rig.bridge.pollNow();
    await rig.c.event((e) => e.session === id && e.type === 'tool.completed');
    // The restarted daemon resumed at its cursor: the new consumer sees the new step, nothing it had before.
    const resumed = vendorIds(rig, id).filter((v) => rig!.stub.conv(id).events.some((e) => e.id === v));
    expect(resumed).toContain(next.id);
    expect(resumed.filter((v) => before.has(v))).toEqual([]);
    expect(sessionEvents(rig.c, id).some((e) => e.type === 'session.started')).toBe(false);
    // The run opened before the restart is the one the restarted daemon closes.
    rig.stub.step(id, { finish: 'Done.' });
    const finished = await rig.c.event((e) => e.session === id && e.type === 'run.finished');
    expect(finished.run).toBe(runBefore);
    expect(sessionEvents(rig.c, id).some((e) => e.type === 'run.started')).toBe(false);
  });
});
