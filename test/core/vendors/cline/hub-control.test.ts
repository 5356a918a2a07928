// Cline control through the hub, end to end: a real daemon (hook routes, relay, store), recorded
// Cline hook payloads posted as the launcher does, a real WebSocket consumer, and a stub hub
// replaying the recorded frames. Every verb's ack and outcome; queue refused where Cline drops it.
import { mkdtemp, readFileSync, rm } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../../common/aep/envelope';
import { clineHubDiscoveryPath } from '../../../../common/cline';
import { validateStream } from '../../../../main/core/aep';
import { startDaemon, type DaemonHandle } from '../../../../main/core/daemon';
import { sendSessionCommand } from '../../../../main/cli/commands/session-command';
import { createHooksFeature } from '../../../../main/core/hooks/hooks-feature';
import { acquireAgentPorts } from '../../../../main/core/steering/agent-ports';
import { command, Consumer, postHook } from '../../hooks/hooks-harness';
import { recordedEvents, startStubHub, type Envelope, type StubHub } from './stub-hub';

const S1 = '1796114557302_k1lk8'; // frames-s1: a plain `cline "prompt"` run (interactive: false)
const N1 = '1796114716502_mhcgt'; // frames-n1: a hub-native session (interactive: true) with approvals
const payload = (file: string, session: string): Record<string, unknown> => {
  const p = JSON.parse(
    readFileSync(new URL(`../../../fixtures/cline/hook-payloads/${file}`, import.meta.url), 'utf8'),
  ) as Record<string, unknown>;
  return { ...p, sessionContext: { rootSessionId: session } };
};
const TASK_START = 'h3-TaskStart-1796114260761-12268.json';
const PRE_TOOL = 'h3-PreToolUse-1796114260911-12274.json';
const SHUTDOWN = 'c2-SessionShutdown-1796114299397-13009.json';

interface Rig {
  daemon: DaemonHandle;
  hub: StubHub | null;
  c: Consumer;
  root: string;
  hook(file: string, session: string, instruct?: boolean): Promise<unknown>;
}
let rig: Rig | undefined;

afterEach(async () => {
  if (!rig) return;
  rig.c.close();
  await rig.daemon.close();
  await rig.hub?.close();
  await promisify(rm)(rig.root, { recursive: true, force: true });
  rig = undefined;
});

async function setup(options: { hub?: boolean; steering?: boolean } = {}): Promise<Rig> {
  const root = await promisify(mkdtemp)(join(tmpdir(), 'aep-cline-ctl-'));
  const home = join(root, 'home');
  await mkdir(home, { recursive: true });
  let hub: StubHub | null = null;
  if (options.hub !== false) {
    hub = await startStubHub();
    await hub.writeDiscovery(clineHubDiscoveryPath(home));
    hub.answer = (cmd) => {
      if (cmd.command === 'session.get')
        return {
          ok: true,
          payload: {
            session: {
              sessionId: cmd.payload.sessionId,
              interactive: cmd.payload.sessionId === N1,
            },
          },
        };
      if (cmd.command === 'run.abort') return { ok: true, payload: { applied: true } };
      return { ok: true, payload: {} };
    };
  }
  const daemon = await startDaemon({
    dataDir: join(root, 'data'),
    port: 0,
    installerHost: { home },
    baseFeatures: [createHooksFeature({ sweepEveryMs: 0 })],
  });
  if (options.steering !== false) {
    await fetch(`${daemon.url}/api/steering`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${daemon.tokens.operator}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ enabled: true, surface: 'console' }),
    });
  }
  const c = await Consumer.open(daemon.url, daemon.tokens.operator);
  rig = {
    daemon,
    hub,
    c,
    root,
    hook: async (file, session, instruct = true) =>
      (
        await postHook(daemon.url, daemon.tokens.hook, 'cline', payload(file, session), {
          instruct,
        })
      ).json,
  };
  return rig;
}

const accepts = async (c: Consumer, session: string): Promise<unknown[]> =>
  (
    (await c.roster()).find((e) => e.session === session)?.control as
      { accepts?: unknown[] } | undefined
  )?.accepts ?? [];

const untilDeclared = async (c: Consumer, session: string): Promise<void> => {
  for (let i = 0; i < 300; i++) {
    if ((await accepts(c, session)).includes('x.cline.control.send_input')) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`${session} never declared the Cline verbs`);
};

const ackOf = (c: Consumer, cmd: AepEvent) =>
  c.event((e) => e.cause === cmd.id && e.type.startsWith('control.'));
/** The types of the events caused by `cmd` so far, in stream order. */
const causedBy = (c: Consumer, cmd: AepEvent): string[] =>
  c
    .events()
    .filter((e) => e.cause === cmd.id)
    .map((e) => e.type);
const ofSession = (events: Envelope[], session: string): Envelope[] =>
  events.filter((e) => e.sessionId === session);

describe('Cline hub control', () => {
  it('declares the Cline verbs once the hub knows an opted-in session; steer is sent, acked and settled steered', async () => {
    const { c, hub, hook } = await setup();
    await hook(TASK_START, S1);
    await untilDeclared(c, S1);
    expect(await accepts(c, S1)).toEqual([
      'x.cline.control.send_input',
      'control.cancel',
      'control.attention.respond',
    ]);
    await c.event((e) => e.type === 'x.cline.hub.status' && e.session === S1);

    const text = 'STEER-MARKER-1 please also say banana';
    const cmd = command(
      'x.cline.control.send_input',
      S1,
      { text, delivery: 'steer' },
      { capture: 'redacted' },
    );
    c.send(cmd);
    const ack = await ackOf(c, cmd);
    expect(ack.type).toBe('control.accepted');
    expect(hub?.commands.filter((x) => x.command === 'session.send_input')).toEqual([
      {
        command: 'session.send_input',
        sessionId: S1,
        payload: { sessionId: S1, prompt: text, delivery: 'steer' },
      },
    ]);
    // The recorded steer: the hub lists it as pending, then submits it into the next model request.
    hub?.publish(
      ofSession(recordedEvents('frames-s1.jsonl'), S1).filter((e) =>
        e.event.startsWith('session.pending_prompt'),
      ),
    );
    const settled = await c.event((e) => e.type === 'x.cline.input.settled' && e.cause === cmd.id);
    expect(settled.data).toMatchObject({ outcome: 'steered', delivery: 'now' });
    await c.event((e) => e.type === 'x.cline.prompts.pending' && e.session === S1);

    // A retried command gets the recorded ack byte for byte, and the hub is not asked again.
    const before = c.texts.filter((t) => t.includes(ack.id as string)).length;
    c.send(cmd);
    for (
      let i = 0;
      i < 200 && c.texts.filter((t) => t.includes(ack.id as string)).length === before;
      i++
    )
      await new Promise((r) => setTimeout(r, 10));
    const copies = c.texts.filter((t) => t.includes(`"id":"${ack.id as string}"`));
    expect(copies.length).toBeGreaterThanOrEqual(2);
    expect(new Set(copies).size).toBe(1);
    expect(hub?.commands.filter((x) => x.command === 'session.send_input')).toHaveLength(1);
    const audit = rig?.daemon.context.audit.query({ session: S1 }).rows.map((r) => r.action);
    expect(audit).toContain('control.accepted');
  });

  it('a steer the hub submits before its send_input reply is read settles steered, after its ack', async () => {
    // Recorded: the pending list comes before the reply; on a busy daemon the submission can be read
    // with it too (a live Cline run under load did so). Both go out here before the reply.
    const { c, hub, hook } = await setup();
    await hook(TASK_START, S1);
    await untilDeclared(c, S1);
    const recorded = ofSession(recordedEvents('frames-s1.jsonl'), S1);
    const base = hub!.answer;
    hub!.answer = (cmd) => {
      if (cmd.command === 'session.send_input')
        hub!.publish(recorded.filter((e) => e.event.startsWith('session.pending_prompt')));
      return base(cmd);
    };
    const cmd = command(
      'x.cline.control.send_input',
      S1,
      { text: 'STEER-MARKER-1 please also say banana', delivery: 'steer' },
      { capture: 'redacted' },
    );
    c.send(cmd);
    const ack = await ackOf(c, cmd);
    expect(ack.type).toBe('control.accepted');
    const settled = await c.event((e) => e.type === 'x.cline.input.settled' && e.cause === cmd.id);
    expect(settled.data).toMatchObject({ outcome: 'steered', delivery: 'now' });
    const order = causedBy(c, cmd);
    expect(order).toEqual(['control.accepted', 'x.cline.input.settled']);
    // The run's end later settles nothing more: the input was settled once.
    hub!.publish(recorded.filter((e) => e.event === 'run.completed'));
    await new Promise((r) => setTimeout(r, 200));
    expect(causedBy(c, cmd)).toEqual(order);
  });

  it('a send_input the hub refuses leaves nothing to settle when its run ends', async () => {
    const { c, hub, hook } = await setup();
    await hook(TASK_START, S1);
    await untilDeclared(c, S1);
    const base = hub!.answer;
    hub!.answer = (cmd) =>
      cmd.command === 'session.send_input'
        ? { ok: false, error: { code: 'session_not_running', message: 'No run' } }
        : base(cmd);
    const cmd = command('x.cline.control.send_input', S1, { text: 'too late', delivery: 'steer' });
    c.send(cmd);
    const ack = await ackOf(c, cmd);
    expect(ack).toMatchObject({ type: 'control.rejected', data: { reason: 'refused' } });
    hub!.publish(
      ofSession(recordedEvents('frames-s1.jsonl'), S1).filter((e) => e.event === 'run.completed'),
    );
    await new Promise((r) => setTimeout(r, 200));
    expect(causedBy(c, cmd)).toEqual(['control.rejected']);
  });

  it('refuses delivery "queue" on a plain `cline "prompt"` run (Cline would drop it), with the reason; the hub is never asked', async () => {
    const { c, hub, hook } = await setup();
    await hook(TASK_START, S1);
    await untilDeclared(c, S1);
    const cmd = command(
      'x.cline.control.send_input',
      S1,
      { text: 'later please', delivery: 'queue' },
      { capture: 'redacted' },
    );
    c.send(cmd);
    const ack = await ackOf(c, cmd);
    expect(ack).toMatchObject({ type: 'control.rejected', data: { reason: 'refused' } });
    expect(String((ack.data as { detail?: string }).detail)).toContain('drops queued input');
    expect(hub?.commands.some((x) => x.command === 'session.send_input')).toBe(false);
    const bad = command(
      'x.cline.control.send_input',
      S1,
      { text: '', delivery: 'steer' },
      { capture: 'redacted' },
    );
    c.send(bad);
    expect(await ackOf(c, bad)).toMatchObject({
      type: 'control.rejected',
      data: { reason: 'invalid' },
    });
  });

  it('queues on a hub-native session and settles when the hub submits it', async () => {
    const { c, hub, hook } = await setup();
    await hook(TASK_START, N1);
    await untilDeclared(c, N1);
    const cmd = command(
      'x.cline.control.send_input',
      N1,
      { text: 'QUEUE-MARKER-N1 queued follow-up', delivery: 'queue' },
      { capture: 'redacted' },
    );
    c.send(cmd);
    expect((await ackOf(c, cmd)).type).toBe('control.accepted');
    expect(hub?.commands.find((x) => x.command === 'session.send_input')?.payload.delivery).toBe(
      'queue',
    );
    hub?.publish(
      ofSession(recordedEvents('frames-n1.jsonl'), N1).filter(
        (e) => e.event === 'session.pending_prompts',
      ),
    );
    hub?.publish([
      {
        event: 'session.pending_prompt_submitted',
        eventId: 'x',
        sessionId: N1,
        sequence: 10_000,
        payload: {
          sessionId: N1,
          prompt: {
            id: 'pending_1796114720068_eX7Oy',
            prompt: 'QUEUE-MARKER-N1 queued follow-up',
            delivery: 'queue',
          },
        },
      },
    ]);
    const settled = await c.event((e) => e.type === 'x.cline.input.settled' && e.cause === cmd.id);
    expect(settled.data).toMatchObject({ outcome: 'prompted', delivery: 'queue' });
  });

  it('control.cancel aborts the run through the hub; run.cancelled is cause-linked and the later hooks do not repeat it', async () => {
    const { c, hub, hook } = await setup();
    await hook(TASK_START, S1);
    await hook(PRE_TOOL, S1);
    await untilDeclared(c, S1);
    const cmd = command('control.cancel', S1, { scope: 'run' });
    c.send(cmd);
    expect((await ackOf(c, cmd)).type).toBe('control.accepted');
    expect(hub?.commands.find((x) => x.command === 'run.abort')).toMatchObject({
      sessionId: S1,
      payload: { sessionId: S1 },
    });
    const cancelled = await c.event((e) => e.type === 'run.cancelled' && e.session === S1);
    expect(cancelled).toMatchObject({ cause: cmd.id, data: { by: 'control' } });
    const scoped = command('control.cancel', S1, { scope: 'session' });
    c.send(scoped);
    expect(await ackOf(c, scoped)).toMatchObject({
      type: 'control.rejected',
      data: { reason: 'unsupported' },
    });
    const none = command('control.cancel', S1, { scope: 'run' });
    c.send(none);
    expect(await ackOf(c, none)).toMatchObject({
      type: 'control.rejected',
      data: { reason: 'refused', detail: 'no run of this session is open' },
    });
    // The hub's abort fact and the hook's shutdown follow: the session ends, the run is not closed twice.
    hub?.publish([
      {
        event: 'run.aborted',
        eventId: 'y',
        sessionId: S1,
        sequence: 20_000,
        payload: { reason: 'aborted' },
      },
    ]);
    await hook(SHUTDOWN, S1);
    await c.event((e) => e.type === 'session.ended' && e.session === S1);
    expect(c.events().filter((e) => e.type === 'run.cancelled' && e.session === S1)).toHaveLength(
      1,
    );
    expect(hub?.commands.filter((x) => x.command === 'run.abort')).toHaveLength(1);
    const stream = validateStream(c.events().filter((e) => e.session === S1));
    expect(stream.ok ? 'ok' : stream.error.message).toBe('ok');
  });

  it('approvals become answerable cards: the first answer wins, a later one and approval_not_found are refused', async () => {
    const { c, hub, hook } = await setup();
    await hook(TASK_START, N1);
    await untilDeclared(c, N1);
    hub?.publish(
      ofSession(recordedEvents('frames-n1.jsonl'), N1).filter(
        (e) => e.event === 'approval.requested',
      ),
    );
    const first = await c.event((e) => e.type === 'attention.requested' && e.session === N1);
    expect(first.data).toMatchObject({ kind: 'permission', respond_via: ['control'] });
    const answer = command(
      'control.attention.respond',
      N1,
      { answer: { option: 'deny' } },
      { subject: first.id },
    );
    c.send(answer);
    expect((await ackOf(c, answer)).type).toBe('control.accepted');
    expect(hub?.commands.find((x) => x.command === 'approval.respond')?.payload).toEqual({
      approvalId: 'approval_1796114719557_qqpp2',
      approved: false,
    });
    await c.event((e) => e.type === 'attention.answered' && e.cause === first.id);
    await c.event((e) => e.type === 'attention.resolved' && e.subject === first.id);
    // The hub confirms; nothing more is emitted for it.
    hub?.publish(
      ofSession(recordedEvents('frames-n1.jsonl'), N1).filter(
        (e) => e.event === 'approval.resolved',
      ),
    );
    const again = command(
      'control.attention.respond',
      N1,
      { answer: { option: 'allow' } },
      { subject: first.id },
    );
    c.send(again);
    expect(await ackOf(c, again)).toMatchObject({
      type: 'control.rejected',
      data: { reason: 'refused' },
    });
    expect(
      c.events().filter((e) => e.type === 'attention.answered' && e.session === N1),
    ).toHaveLength(1);

    // The second recorded approval, answered elsewhere first: the hub says approval_not_found.
    const second = await c.event(
      (e) => e.type === 'attention.requested' && e.session === N1 && e.id !== first.id,
    );
    if (hub)
      hub.answer = () => ({
        ok: false,
        error: { code: 'approval_not_found', message: 'Unknown approval' },
      });
    const late = command(
      'control.attention.respond',
      N1,
      { answer: { option: 'allow' } },
      { subject: second.id },
    );
    c.send(late);
    const nack = await ackOf(c, late);
    expect(nack).toMatchObject({ type: 'control.rejected', data: { reason: 'refused' } });
    expect(String((nack.data as { detail?: string }).detail)).toContain('approval_not_found');
    const stream = validateStream(c.events().filter((e) => e.session === N1));
    expect(stream.ok ? 'ok' : stream.error.message).toBe('ok');
  });

  it('without a hub the session is observed through hooks only, visibly, and declares no Cline verb', async () => {
    const { c, hook } = await setup({ hub: false });
    await hook(TASK_START, S1);
    const status = await c.event((e) => e.type === 'x.cline.hub.status' && e.session === S1);
    expect(status).toMatchObject({ severity: 'warning', data: { state: 'hooks-only' } });
    expect(await accepts(c, S1)).toEqual([]);
  });

  it('the CLI path (the prompt command: roster lookup, send_input, ack) reaches a Cline session through the hub', async () => {
    const { c, hub, hook, daemon } = await setup();
    await hook(TASK_START, S1);
    await untilDeclared(c, S1);
    const base = {
      url: daemon.url,
      token: daemon.tokens.operator,
      session: S1,
      capture: 'redacted' as const,
      wait: 'none' as const,
    };
    const verb = (accepts: readonly string[]) =>
      accepts.find((a) => /^x\.[a-z0-9-]+\.control\.send_input$/.test(a)) ?? null;
    const now = await sendSessionCommand({
      ...base,
      verb,
      data: { text: 'from the cli', delivery: 'now' },
    });
    expect(now).toMatchObject({ code: 0, message: 'accepted' });
    expect(hub?.commands.find((x) => x.command === 'session.send_input')?.payload).toEqual({
      sessionId: S1,
      prompt: 'from the cli',
      delivery: 'steer',
    });
    const queued = await sendSessionCommand({
      ...base,
      verb,
      data: { text: 'later', delivery: 'queue' },
    });
    expect(queued.code).toBe(3);
    expect(queued.message).toContain('drops queued input');
  });

  it('a plain run ends when its CLI detaches from the hub (no hook says so): session.ended, claim released', async () => {
    const { c, hub, hook } = await setup();
    await hook(TASK_START, S1);
    await untilDeclared(c, S1);
    await hook('h3-TaskComplete-1796114261081-12285.json', S1);
    await c.event((e) => e.type === 'run.finished' && e.session === S1);
    hub?.publish(
      ofSession(recordedEvents('frames-s1.jsonl'), S1).filter(
        (e) => e.event === 'session.detached',
      ),
    );
    await c.event((e) => e.type === 'session.ended' && e.session === S1);
    expect((await c.roster()).some((e) => e.session === S1)).toBe(false);
  });

  it('a whole recorded hub run adds nothing the hooks already say (no run, tool or iteration events from the hub)', async () => {
    const HB1 = '1796114478054_hp6h1';
    const { c, hub, hook } = await setup();
    await hook(TASK_START, HB1);
    await untilDeclared(c, HB1);
    const before = c.events().filter((e) => e.session === HB1).length;
    const recorded = ofSession(recordedEvents('frames-hb1.jsonl'), HB1);
    hub?.publish(recorded.filter((e) => e.event !== 'session.detached'));
    // A marker after the replay: once its effect is seen, everything before it was handled.
    hub?.publish([
      {
        event: 'session.pending_prompts',
        eventId: 'm',
        sessionId: HB1,
        sequence: 99_999,
        payload: { sessionId: HB1, prompts: [{ id: 'p', prompt: 'x', delivery: 'queue' }] },
      },
    ]);
    await c.event((e) => e.type === 'x.cline.prompts.pending' && e.session === HB1);
    const added = c
      .events()
      .filter((e) => e.session === HB1)
      .slice(before)
      .map((e) => e.type);
    expect(added).toEqual(['x.cline.prompts.pending']);
  });

  it('the kill switch withdraws the verbs at once; a session without the opt-in never gets them', async () => {
    const { c, hook, daemon } = await setup();
    await hook(TASK_START, S1);
    await untilDeclared(c, S1);
    await fetch(`${daemon.url}/api/steering`, {
      method: 'PUT',
      headers: {
        authorization: `Bearer ${daemon.tokens.operator}`,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ enabled: false, surface: 'console' }),
    });
    expect(await accepts(c, S1)).toEqual([]);
    await hook(TASK_START, N1, false);
    await c.event((e) => e.type === 'session.started' && e.session === N1);
    expect(await accepts(c, N1)).toEqual([]);
  });

  it('the hub owns control of a session it can act on and the hooks enrich it: one row, one claim, one card, the hooks\' tool events', async () => {
    const { c, hub, hook, daemon } = await setup();
    const lease = acquireAgentPorts(daemon.context);
    const registry = lease.ports.registry;
    try {
      await hook(TASK_START, N1);
      await untilDeclared(c, N1);
      const source = `aep://localhost/agent/cline/session/${N1}`;
      expect(registry.owner(N1)).toMatchObject({ kind: 'hub', agent: 'cline', source });
      const stored = daemon.context.db.prepare('SELECT kind, source, owner FROM session_registry WHERE session = ? ORDER BY kind').all(N1);
      expect(stored).toEqual([
        { kind: 'hooks', source, owner: 0 },
        { kind: 'hub', source, owner: 1 },
      ]);
      // The hooks' facts go through the owner: their tool events are on the stream, once.
      await hook(PRE_TOOL, N1);
      const tool = await c.event((e) => e.type === 'tool.requested' && e.session === N1);
      expect(tool.source).toBe(source);
      hub?.publish(ofSession(recordedEvents('frames-n1.jsonl'), N1).filter((e) => e.event === 'approval.requested').slice(0, 1));
      await c.event((e) => e.type === 'attention.requested' && e.session === N1);
      await hook(PRE_TOOL, N1);
      const events = c.events().filter((e) => e.session === N1);
      expect(events.filter((e) => e.type === 'session.started')).toHaveLength(1);
      expect(events.filter((e) => e.type === 'attention.requested')).toHaveLength(1);
      expect(new Set(events.map((e) => e.source))).toEqual(new Set([source]));
      expect((await c.roster()).filter((e) => e.session === N1)).toHaveLength(1);
      const list = (await (await fetch(`${daemon.url}/api/sessions`, { headers: { authorization: `Bearer ${daemon.tokens.operator}` } })).json()) as { session: string }[];
      expect(list.filter((r) => r.session === N1)).toHaveLength(1);
      // A verb is routed to the one claimant, never refused as ambiguous.
      const cmd = command('x.cline.control.send_input', N1, { text: 'one route', delivery: 'queue' }, { capture: 'redacted' });
      c.send(cmd);
      expect((await ackOf(c, cmd)).type).toBe('control.accepted');
      expect(c.texts.some((t) => t.includes('ambiguous'))).toBe(false);
      // The session ends: the hub lets go of it.
      await hook(SHUTDOWN, N1);
      await c.event((e) => e.type === 'session.ended' && e.session === N1);
      expect(registry.owner(N1)).toBeUndefined();
    } finally {
      lease.release();
    }
  });
});
