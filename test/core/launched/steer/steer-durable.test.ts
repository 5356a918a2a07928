/** Steer state across a restart, the hook-path pending list, the toggle routes, and the turn controller's steering ports. */
import { afterEach, describe, expect, it } from 'vitest';
import { midTurnOverrideFromEnv } from '../../../../main/core/launched/steer/toggle';
import { AgentInputsRepo } from '../../../../main/core/store/inputs-repo';
import { TurnController, type TurnInput } from '../../../../main/core/launched/turn-controller';
import { SteeringRepo } from '../../../../main/core/store/steering-repo';
import { Consumer, removeAgentsDir, startAgentsDaemon, type AgentsDaemon } from '../agents-harness';

type Json = Record<string, unknown>;
let d: AgentsDaemon | null = null;
let c: Consumer | null = null;
afterEach(async () => {
  c?.close();
  c = null;
  if (d) {
    await d.close();
    removeAgentsDir(d.dataDir);
  }
  d = null;
});

describe('after a restart', () => {
  it('a steer caught sent settles interrupted (never re-sent), queued input is dropped, each with an event and an audit row', async () => {
    d = await startAgentsDaemon();
    const repo = new AgentInputsRepo(d.daemon.context.db);
    const base = {
      commandSource: 'urn:test',
      agent: 'claude-code',
      session: 'sess-r',
      actor: 'operator',
      surface: 'cli' as const,
      planned: 'prompted' as const,
    };
    repo.accept({ ...base, commandId: 'sent-1', text: 'in flight', delivery: 'now' }, 1);
    repo.markSent('sess-r', 'sent-1', { rpcId: '4', mechanism: 'concurrent-prompt' }, 2);
    repo.accept({ ...base, commandId: 'queued-1', text: 'waiting', delivery: 'queue' }, 3);
    const dataDir = d.dataDir;
    await d.close();
    d = await startAgentsDaemon({}, dataDir);
    const inputs = await d.api<Json[]>('GET', '/api/inputs?session=sess-r');
    expect(inputs.json.map((r) => [r.commandId, r.state, r.outcome])).toEqual([
      ['queued-1', 'settled', 'dropped'],
      ['sent-1', 'settled', 'interrupted'],
    ]);
    const audit = d.daemon.context.audit;
    expect(audit.query({ action: 'input.interrupted' }).rows[0]).toMatchObject({
      commandId: 'sent-1',
      outcome: 'interrupted',
    });
    expect(audit.query({ action: 'input.dropped' }).rows[0]).toMatchObject({
      commandId: 'queued-1',
      detail: { reason: 'session-not-resumed' },
    });
    const stored = d.daemon.context.db
      .prepare("SELECT type, json FROM events WHERE session = 'sess-r'")
      .all() as { type: string; json: string }[];
    const settled = stored
      .filter((e) => e.type === 'x.claude-code.input.settled')
      .map((e) => JSON.parse(e.json) as Json);
    expect(settled.map((e) => [e.cause, (e.data as Json).outcome])).toEqual(
      expect.arrayContaining([
        ['sent-1', 'interrupted'],
        ['queued-1', 'dropped'],
      ]),
    );
  });
});

describe('the hook-path instruction queue in the pending list', () => {
  it('lists, edits, reorders and withdraws queued instructions; the withdrawal is audited with an event', async () => {
    d = await startAgentsDaemon();
    c = await Consumer.connect(d.url, d.daemon.tokens.operator);
    const steering = new SteeringRepo(d.daemon.context.db);
    for (const id of ['i1', 'i2']) {
      steering.recordDecision(
        { source: 'urn:test', commandId: id, session: 'hook-s', json: '{}' },
        1,
        {
          commandSource: 'urn:test',
          commandId: id,
          vendor: 'claude-code',
          session: 'hook-s',
          text: `instruction ${id}`,
          actor: 'operator',
          surface: 'console',
          queuedAtMs: 1,
        },
      );
    }
    const list = await d.api<Json>('GET', '/api/pending?session=hook-s');
    expect((list.json.items as Json[]).map((i) => [i.kind, i.commandId, i.delivery])).toEqual([
      ['instruction', 'i1', 'instruct'],
      ['instruction', 'i2', 'instruct'],
    ]);
    expect(list.json.support).toBeNull();
    expect(
      (
        await d.api<Json>('POST', '/api/pending/edit', {
          session: 'hook-s',
          commandId: 'i2',
          text: 'better',
        })
      ).json,
    ).toMatchObject({ text: 'better' });
    expect(
      (await d.api('POST', '/api/pending/reorder', { session: 'hook-s', order: ['i2', 'i1'] }))
        .status,
    ).toBe(200);
    expect(steering.queued('claude-code', 'hook-s').map((q) => [q.commandId, q.text])).toEqual([
      ['i2', 'better'],
      ['i1', 'instruction i1'],
    ]);
    expect(
      (await d.api('POST', '/api/pending/reorder', { session: 'hook-s', order: ['i2'] })).status,
    ).toBe(400);
    expect(
      (await d.api('POST', '/api/pending/withdraw', { session: 'hook-s', commandId: 'i1' })).status,
    ).toBe(200);
    expect(
      await c.waitEvent(
        (e) => e.cause === 'i1' && e.type === 'x.claude-code.instruction.dropped',
        'dropped',
      ),
    ).toMatchObject({ data: { reason: 'withdrawn' } });
    expect(steering.queued('claude-code', 'hook-s').map((q) => q.commandId)).toEqual(['i2']);
    // Edit, reorder and withdrawal are each on the stream, in that order, cause-linked.
    const changes = c
      .of('hook-s')
      .filter((e) => /^x\.claude-code\.instruction\.(edited|reordered|dropped)$/.test(String(e.type)));
    expect(changes.map((e) => [e.type, e.cause])).toEqual([
      ['x.claude-code.instruction.edited', 'i2'],
      ['x.claude-code.instruction.reordered', 'i2'],
      ['x.claude-code.instruction.dropped', 'i1'],
    ]);
    expect(changes[0]).toMatchObject({ capture: 'redacted', data: { text: 'better' } });
    expect(changes[1]).toMatchObject({ capture: 'metadata', data: { order: ['i2', 'i1'] } });
    const stored = d.daemon.context.db
      .prepare("SELECT type FROM events WHERE session = 'hook-s' ORDER BY seq")
      .all() as { type: string }[];
    expect(stored.map((e) => e.type)).toEqual(changes.map((e) => e.type));
    expect(d.daemon.context.audit.query({ action: 'instruct.withdrawn' }).rows[0]).toMatchObject({
      commandId: 'i1',
      outcome: 'dropped',
    });
    expect(
      (await d.api('POST', '/api/pending/withdraw', { session: 'hook-s', commandId: 'i1' })).status,
    ).toBe(409);
    expect(
      (
        await d.api('POST', '/api/pending/edit', {
          session: 'hook-s',
          commandId: 'nope',
          text: 'x',
        })
      ).status,
    ).toBe(404);
    expect(
      (await d.api('POST', '/api/pending/edit', { session: 'hook-s', commandId: 'i2', text: '' }))
        .status,
    ).toBe(400);
  });
});

describe('the toggle routes and the host override', () => {
  it('GET/PUT /api/mid-turn-steering is audited and in force only under the kill switch', async () => {
    d = await startAgentsDaemon();
    expect((await d.api('GET', '/api/mid-turn-steering')).json).toEqual({
      enabled: false,
      setting: false,
      override: null,
      steering: false,
    });
    expect(
      (await d.api('PUT', '/api/mid-turn-steering', { enabled: true, surface: 'console' })).json,
    ).toMatchObject({ setting: true, enabled: false });
    d.daemon.context.settings.set({ 'features.steering': true });
    expect((await d.api('GET', '/api/mid-turn-steering')).json).toMatchObject({ enabled: true });
    expect((await d.api('PUT', '/api/mid-turn-steering', { enabled: 'yes' })).status).toBe(400);
    expect(
      d.daemon.context.audit.query({ action: 'mid-turn-steering.enabled' }).rows[0],
    ).toMatchObject({ surface: 'console' });
  });

  it('parses the environment override strictly', () => {
    expect(midTurnOverrideFromEnv({})).toEqual({ ok: true, value: null });
    expect(midTurnOverrideFromEnv({ AEP_COMPANION_MID_TURN_STEERING: '1' })).toEqual({
      ok: true,
      value: true,
    });
    expect(midTurnOverrideFromEnv({ AEP_COMPANION_MID_TURN_STEERING: 'off' })).toEqual({
      ok: true,
      value: false,
    });
    expect(midTurnOverrideFromEnv({ AEP_COMPANION_MID_TURN_STEERING: 'maybe' })).toMatchObject({
      ok: false,
    });
  });
});

describe('turn controller steering ports', () => {
  const input = (id: string, delivery = 'queue'): TurnInput => ({
    id,
    text: id,
    delivery,
    submittedAtMs: 0,
  });
  const rig = () => {
    const log: string[] = [];
    const turns: { input: TurnInput; end: () => void }[] = [];
    const ctl = new TurnController({
      startTurn: (i) => new Promise<void>((resolve) => turns.push({ input: i, end: resolve })),
      queued: (i, p) => log.push(`queued ${i.id} ${p}`),
      dropped: (i, r) => log.push(`dropped ${i.id} ${r}`),
    });
    return { ctl, log, turns };
  };
  const tick = () => new Promise((r) => setTimeout(r, 0));

  it('stop goes first and cancels; edit, reorder and withdraw change only the queue', async () => {
    const { ctl, log, turns } = rig();
    const cancels: string[] = [];
    ctl.setCanceller((i) => cancels.push(i.id));
    ctl.submit(input('a'));
    ctl.submit(input('b'));
    ctl.submit(input('c'));
    expect(ctl.submit(input('s', 'stop'))).toBe('queue');
    expect(cancels).toEqual(['s']);
    expect(ctl.pending().map((p) => p.id)).toEqual(['s', 'b', 'c']);
    expect(ctl.edit('c', 'c2')).toBe(true);
    expect(ctl.edit('a', 'x')).toBe(false);
    expect(ctl.reorder(['c', 's', 'b'])).toBe(true);
    expect(ctl.reorder(['c', 's'])).toBe(false);
    expect(ctl.withdraw('b')).toBe(true);
    expect(ctl.withdraw('b')).toBe(false);
    expect(log).toContain('dropped b withdrawn');
    turns[0].end();
    await tick();
    expect(turns.map((t) => t.input.text)).toEqual(['a', 'c2']);
  });

  it('adoptFront and requeueFront dispatch next, ahead of the queue', async () => {
    const { ctl, turns, log } = rig();
    ctl.submit(input('a'));
    ctl.submit(input('q'));
    ctl.adoptFront(input('steer'));
    expect(log).not.toContain('queued steer 1');
    turns[0].end();
    await tick();
    expect(turns.map((t) => t.input.id)).toEqual(['a', 'steer']);
    ctl.requeueFront(input('refused'));
    expect(log).toContain('queued refused 1');
    turns[1].end();
    await tick();
    expect(turns.map((t) => t.input.id)).toEqual(['a', 'steer', 'refused']);
  });
});
