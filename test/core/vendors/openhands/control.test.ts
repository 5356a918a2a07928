// Control of an OpenHands conversation behind its gate (`--instruct` and the kill switch): send_input
// appended with run:false and settled from the stream, cancel → interrupt, the confirmation card
// answered with respond_to_confirmation.
import { afterEach, describe, expect, it } from 'vitest';
import { sendSessionCommand } from '../../../../main/cli/commands/session-command';
import { command } from '../../hooks/hooks-harness';
import { startRig, sessionEvents, until, type Rig } from './harness';

let rig: Rig | undefined;
afterEach(async () => {
  await rig?.close();
  rig = undefined;
});

const accepts = async (r: Rig, id: string): Promise<string[]> =>
  (((await r.c.roster()).find((e) => e.session === id)?.control as { accepts?: string[] } | undefined)?.accepts ?? []);

async function running(r: Rig): Promise<string> {
  const id = r.stub.create('Please fix the failing test.');
  r.stub.step(id);
  await r.bridge.pollNow();
  await r.c.event((e) => e.session === id && e.type === 'tool.completed');
  return id;
}

const prompt = (r: Rig, id: string, text: string) =>
  sendSessionCommand({
    url: r.daemon.url,
    token: r.daemon.tokens.operator,
    session: id,
    verb: (a) => a.find((x) => /^x\.[a-z0-9-]+\.control\.send_input$/.test(x)) ?? null,
    data: { text, delivery: 'now' },
    capture: 'redacted',
    wait: 'settled',
  });

describe('the control gate', () => {
  it('declares the verbs only with --instruct and the kill switch on', async () => {
    rig = await startRig({ instruct: false });
    const id = await running(rig);
    expect(await accepts(rig, id)).toEqual([]);
    const refused = await prompt(rig, id, 'hello');
    expect(refused.code).toBe(3);
    await rig.api('POST', '/api/openhands/connect', { url: rig.stub.url, key: rig.stub.key, instruct: true });
    await until(async () => (await accepts(rig!, id)).includes('x.openhands.control.send_input'), 'the verbs declared');
    await rig.api('PUT', '/api/steering', { enabled: false, surface: 'console' });
    await until(async () => (await accepts(rig!, id)).length === 0, 'the verbs withdrawn by the kill switch');
    expect(rig.stub.posts.filter((p) => p.path.endsWith('/events'))).toEqual([]);
  });
});

describe('send_input', () => {
  it('appends with run:false and settles "steered" at the first step whose model call began after the append', async () => {
    rig = await startRig();
    const id = await running(rig);
    await until(async () => (await accepts(rig!, id)).includes('x.openhands.control.send_input'), 'the verb');
    const appended = rig.stub.nextPost(/\/events$/);
    const pending = prompt(rig, id, 'Use pytest -x, not the whole suite.');
    await appended;
    expect(rig.stub.posts.at(-1)!.body).toEqual({ role: 'user', content: [{ type: 'text', text: 'Use pytest -x, not the whole suite.' }], run: false });
    // The step in flight at the append did not read it.
    const inflight = rig.stub.step(id)!;
    expect(JSON.stringify(inflight.thought)).not.toContain('pytest -x, not');
    await rig.c.event((e) => e.session === id && e.type === 'tool.completed' && (e.data as { tool: { call_id: string } }).tool.call_id === inflight.tool_call_id);
    expect(sessionEvents(rig.c, id).some((e) => e.type === 'x.openhands.input.settled')).toBe(false);
    const reading = rig.stub.step(id)!;
    expect(JSON.stringify(reading.thought)).toContain('Use pytest -x, not the whole suite.');
    const outcome = await pending;
    expect(outcome.message.split('\n').at(-1)).toBe('steered');
    expect(outcome.code).toBe(0);
    // The CLI heard the settlement on its own socket; this consumer hears it on its own.
    const settled = await rig.c.event((e) => e.session === id && e.type === 'x.openhands.input.settled');
    expect(settled.cause).toBe(outcome.commandId);
    // One run only: the message joined the running one.
    expect(rig.stub.conv(id).status).toBe('running');
    expect(sessionEvents(rig.c, id).filter((e) => e.type === 'run.started')).toHaveLength(1);
  });

  it('settles "deferred" when the run ends before a step reads it, and when the conversation is not running', async () => {
    rig = await startRig();
    const id = await running(rig);
    const appended = rig.stub.nextPost(/\/events$/);
    const first = prompt(rig, id, 'Also update the changelog.');
    await appended;
    rig.stub.step(id, { finish: 'Done.' }); // the step in flight was the last one
    const a = await first;
    expect(a.message.split('\n').at(-1)).toBe('deferred');
    expect(a.code).toBe(10);
    const b = await prompt(rig, id, 'And the README.');
    // The server reset `finished` to `idle` before the append (FACTS.md §6.1).
    expect(b.message).toContain('appended while the conversation is idle');
    expect(b.code).toBe(10);
    // No second run was started by us.
    expect(rig.stub.posts.every((p) => (p.body as { run?: unknown }).run !== true)).toBe(true);
  });

  it('is refused while a confirmation is pending', async () => {
    rig = await startRig();
    const id = await running(rig);
    rig.stub.step(id, { confirm: true });
    await rig.c.event((e) => e.session === id && e.type === 'attention.requested');
    const r = await prompt(rig, id, 'hi');
    expect(r.code).toBe(3);
    expect(r.message).toContain('confirmation');
  });
});

describe('cancel and confirmations', () => {
  it('control.cancel interrupts the run: run.cancelled by control, cause-linked', async () => {
    rig = await startRig();
    const id = await running(rig);
    const cmd = command('control.cancel', id, { scope: 'run' });
    rig.c.send(cmd);
    await rig.c.event((e) => e.cause === cmd.id && e.type === 'control.accepted');
    const cancelled = await rig.c.event((e) => e.session === id && e.type === 'run.cancelled');
    expect(cancelled.cause).toBe(cmd.id);
    expect(cancelled.data).toMatchObject({ by: 'control' });
    expect(rig.stub.posts.map((p) => p.path)).toContain(`/api/conversations/${id}/interrupt`);
    expect(rig.stub.conv(id).status).toBe('paused');
  });

  it('a pending action becomes an answerable card; approve runs it, a reply with a reason denies it', async () => {
    rig = await startRig();
    const id = await running(rig);
    const action = rig.stub.step(id, { confirm: true })!;
    const card = await rig.c.event((e) => e.session === id && e.type === 'attention.requested');
    expect(card.data).toMatchObject({ kind: 'permission', respond_via: ['control'], options: [{ id: 'approve' }, { id: 'deny' }] });
    expect(String((card.data as { prompt: string }).prompt)).toContain('terminal');
    const approve = command('control.attention.respond', id, { answer: { option: 'approve' } }, { subject: card.id });
    rig.c.send(approve);
    await rig.c.event((e) => e.cause === approve.id && e.type === 'control.accepted');
    await rig.c.event((e) => e.session === id && e.type === 'attention.resolved');
    const done = await rig.c.event((e) => e.session === id && e.type === 'tool.completed' && (e.data as { tool: { call_id: string } }).tool.call_id === action.tool_call_id);
    expect(done).toBeDefined();
    expect(rig.stub.posts.at(-1)).toEqual({ path: `/api/conversations/${id}/events/respond_to_confirmation`, body: { accept: true } });
    expect(sessionEvents(rig.c, id).filter((e) => e.type === 'attention.resolved')).toHaveLength(1);

    const second = rig.stub.step(id, { confirm: true })!;
    const card2 = await rig.c.event((e) => e.session === id && e.type === 'attention.requested' && e.id !== card.id);
    const deny = command('control.attention.respond', id, { answer: { text: 'Do not touch prod.' } }, { subject: card2.id, capture: 'redacted' });
    rig.c.send(deny);
    const rejected = await rig.c.event((e) => e.session === id && e.type === 'x.openhands.user_reject.observation');
    expect(rejected.data).toMatchObject({ tool: { name: 'terminal', call_id: second.tool_call_id } });
    expect(rig.stub.posts.at(-1)!.body).toEqual({ accept: false, reason: 'Do not touch prod.' });
    await rig.c.event((e) => e.session === id && e.type === 'run.finished');
  });
});
