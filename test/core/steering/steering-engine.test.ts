import { rmSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAX_QUEUED_PER_SESSION } from '../../../common/steering';
import { sessionSource } from '../../../main/core/steering/vendor-emitter';
import { instruct, steeringFixture, type SteeringFixture } from './steering-fixture';

let f: SteeringFixture;

beforeEach(() => {
  f = steeringFixture();
  f.killSwitch.set(true, { actor: 'operator', surface: 'api' });
});
afterEach(() => f.close());

const cc = () => f.channel('claude-code');
const auditActions = (commandId: string) => f.audit.query({ limit: 100 }).rows.filter((r) => r.commandId === commandId).map((r) => r.action).reverse();

describe('instruct commands', () => {
  it('acks an accepted instruction with control.accepted caused by the command and queues it durably', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', 'prefer small commits');
    await f.engine.handleInstruct('claude-code', cmd);
    const [ack] = cc().events();
    expect(ack).toMatchObject({ type: 'control.accepted', cause: cmd.id, session: 's1', data: {} });
    expect(f.repo.queued('claude-code', 's1').map((q) => q.text)).toEqual(['prefer small commits']);
    expect(f.repo.findAck(cmd.source, cmd.id)?.json).toBe(cc().sent[0]);
  });

  it('answers a retried command with the recorded ack, byte-identical, and never queues it twice', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', 'once');
    await f.engine.handleInstruct('claude-code', cmd);
    await f.engine.handleInstruct('claude-code', cmd);
    expect(cc().sent).toHaveLength(2);
    expect(cc().sent[1]).toBe(cc().sent[0]);
    expect(f.repo.countQueued('claude-code', 's1')).toBe(1);
    expect(auditActions(cmd.id)).toEqual(['instruct.command', 'instruct.accepted', 'instruct.retry']);
  });

  it('re-emits a recorded rejection on retry instead of deciding again', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', '   ');
    await f.engine.handleInstruct('claude-code', cmd);
    f.killSwitch.set(false, { actor: 'operator', surface: 'api' });
    await f.engine.handleInstruct('claude-code', cmd);
    expect(cc().sent[1]).toBe(cc().sent[0]);
    expect(cc().events()[1].data).toMatchObject({ reason: 'invalid' });
  });

  it('rejects an empty text as invalid', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', '  \n ');
    await f.engine.handleInstruct('claude-code', cmd);
    expect(cc().events()[0]).toMatchObject({ type: 'control.rejected', cause: cmd.id, data: { reason: 'invalid' } });
    expect(f.repo.countQueued('claude-code', 's1')).toBe(0);
  });

  it('rejects a text that is not a string as invalid', async () => {
    f.see('claude-code', 's1');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 42));
    expect(cc().events()[0].data).toMatchObject({ reason: 'invalid' });
  });

  it("rejects a text over the vendor's cap instead of truncating it, and accepts one exactly at the cap", async () => {
    f.see('claude-code', 's1');
    const over = instruct('claude-code', 's1', 'x'.repeat(10_001));
    const at = instruct('claude-code', 's1', 'y'.repeat(10_000));
    await f.engine.handleInstruct('claude-code', over);
    await f.engine.handleInstruct('claude-code', at);
    const [first, second] = cc().events();
    expect(first).toMatchObject({ type: 'control.rejected', data: { reason: 'invalid' } });
    expect(String(first.data?.detail)).toContain('10001');
    expect(second).toMatchObject({ type: 'control.accepted', cause: at.id });
    expect(f.repo.queued('claude-code', 's1')[0].text).toHaveLength(10_000);
  });

  it('rejects the 21st queued instruction as invalid with a capture-gated detail', async () => {
    f.see('claude-code', 's1');
    for (let i = 0; i < MAX_QUEUED_PER_SESSION; i++) await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', `n${i}`));
    const extra = instruct('claude-code', 's1', 'one too many');
    await f.engine.handleInstruct('claude-code', extra);
    const nack = cc().events().find((e) => e.cause === extra.id);
    expect(nack).toMatchObject({ type: 'control.rejected', capture: 'redacted', data: { reason: 'invalid' } });
    expect(String(nack?.data?.detail)).toMatch(/queue is full/);
    expect(f.repo.countQueued('claude-code', 's1')).toBe(MAX_QUEUED_PER_SESSION);
  });

  it('refuses an instruction for a session that has ended', async () => {
    f.see('claude-code', 's1');
    f.sessions.setState(sessionSource('claude-code', 's1'), 's1', 'ended');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'too late'));
    expect(cc().events()[0]).toMatchObject({ type: 'control.rejected', data: { reason: 'refused' } });
  });

  it('nacks unsupported while the kill switch is off', async () => {
    f.see('claude-code', 's1');
    f.killSwitch.set(false, { actor: 'operator', surface: 'api' });
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'hello'));
    expect(cc().events()[0]).toMatchObject({ type: 'control.rejected', data: { reason: 'unsupported' } });
  });

  it('nacks unsupported for a session whose hooks lack the steering opt-in', async () => {
    f.see('claude-code', 's1', { instruct: false });
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'hello'));
    expect(cc().events()[0]).toMatchObject({ type: 'control.rejected', data: { reason: 'unsupported' } });
  });

  it('audits the command and its ack with actor, surface, session and command id', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', 'hi', { surface: 'cli', agent: 'alice' });
    await f.engine.handleInstruct('claude-code', cmd);
    const rows = f.audit.query({ session: 's1' }).rows;
    const accepted = rows.find((r) => r.action === 'instruct.accepted');
    expect(accepted).toMatchObject({ actor: 'alice', surface: 'cli', session: 's1', commandId: cmd.id, outcome: 'ok' });
    expect(rows.find((r) => r.action === 'instruct.command')).toMatchObject({ surface: 'cli', outcome: 'received' });
  });
});

/** Takes the queue for a reply and settles the hand-over as written (or not); the handed text, or null. */
async function handOver(fx: SteeringFixture, session: string, moment: string, written = true): Promise<string | null> {
  const handover = fx.engine.deliver('claude-code', session, moment);
  if (handover === null) return null;
  await handover.settle(written);
  return handover.text;
}

describe('delivery', () => {
  it('joins queued texts in arrival order and emits one delivered event per instruction, cause-linked', async () => {
    f.see('claude-code', 's1');
    const a = instruct('claude-code', 's1', 'first');
    const b = instruct('claude-code', 's1', 'second');
    await f.engine.handleInstruct('claude-code', a);
    f.clock.now += 1_500;
    await f.engine.handleInstruct('claude-code', b);
    f.clock.now += 500;
    expect(await handOver(f, 's1', 'PreToolUse')).toBe('first\n\nsecond');
    const delivered = cc().ofType('x.claude-code.instruction.delivered');
    expect(delivered.map((e) => [e.cause, e.data])).toEqual([
      [a.id, { queued_ms: 2_000, moment: 'PreToolUse' }],
      [b.id, { queued_ms: 500, moment: 'PreToolUse' }],
    ]);
    expect(f.repo.get(a.source, a.id)).toMatchObject({ state: 'delivered', moment: 'PreToolUse', queuedMs: 2_000 });
    expect(f.audit.query({ action: 'instruct.delivered' }).rows.map((r) => r.commandId).sort()).toEqual([a.id, b.id].sort());
  });

  it('keeps what does not fit in the cap for the next moment, never truncating', async () => {
    f.see('claude-code', 's1');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'a'.repeat(6_000)));
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'b'.repeat(6_000)));
    expect(await handOver(f, 's1', 'UserPromptSubmit')).toBe('a'.repeat(6_000));
    expect(f.repo.countQueued('claude-code', 's1')).toBe(1);
    expect(await handOver(f, 's1', 'PreToolUse')).toBe('b'.repeat(6_000));
  });

  it('never delivers an instruction twice', async () => {
    f.see('claude-code', 's1');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'once only'));
    expect(await handOver(f, 's1', 'UserPromptSubmit')).toBe('once only');
    expect(await handOver(f, 's1', 'PreToolUse')).toBeNull();
    expect(cc().ofType('x.claude-code.instruction.delivered')).toHaveLength(1);
  });

  it('delivers nothing while steering is off', async () => {
    f.see('claude-code', 's1');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'later'));
    f.settings.set({ 'features.steering': false });
    expect(f.engine.deliver('claude-code', 's1', 'UserPromptSubmit')).toBeNull();
  });
});

describe('drops', () => {
  it('drops queued instructions when the session ends, one dropped event each', async () => {
    f.see('claude-code', 's1');
    const a = instruct('claude-code', 's1', 'a');
    const b = instruct('claude-code', 's1', 'b');
    await f.engine.handleInstruct('claude-code', a);
    await f.engine.handleInstruct('claude-code', b);
    f.clock.now += 42;
    expect(f.engine.sessionEnded('claude-code', 's1')).toBe(2);
    const dropped = cc().ofType('x.claude-code.instruction.dropped');
    expect(dropped.map((e) => [e.cause, e.data])).toEqual([
      [a.id, { reason: 'session-ended', queued_ms: 42 }],
      [b.id, { reason: 'session-ended', queued_ms: 42 }],
    ]);
    expect(f.audit.query({ action: 'instruct.dropped' }).rows.every((r) => r.outcome === 'dropped' && r.detail?.reason === 'session-ended')).toBe(true);
    expect(f.engine.deliver('claude-code', 's1', 'UserPromptSubmit')).toBeNull();
  });

  it('drops everything queued with steering-disabled, audited with who turned it off', async () => {
    f.see('claude-code', 's1');
    f.see('codex', 't1');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'a'));
    await f.engine.handleInstruct('codex', instruct('codex', 't1', 'b'));
    expect(f.engine.steeringDisabled({ actor: 'operator', surface: 'tray' })).toBe(2);
    expect(cc().ofType('x.claude-code.instruction.dropped')[0].data).toMatchObject({ reason: 'steering-disabled' });
    expect(f.channel('codex').ofType('x.codex.instruction.dropped')[0].data).toMatchObject({ reason: 'steering-disabled' });
    const rows = f.audit.query({ action: 'instruct.dropped' }).rows;
    expect(rows.map((r) => r.surface)).toEqual(['tray', 'tray']);
  });

  it.each(['codex', 'vscode'] as const)('%s (no session-end moment) keeps its queue past the idle expiry and delivers at the next eligible hook', async (vendor) => {
    f.see(vendor, 't1');
    const cmd = instruct(vendor, 't1', 'wait for me');
    await f.engine.handleInstruct(vendor, cmd);
    const expiry = f.settings.get('steering.idleExpiryMs');
    f.clock.now += expiry * 10;
    expect(f.engine.sweepIdle()).toBe(0);
    expect(f.repo.countQueued(vendor, 't1')).toBe(1);
    expect(f.channel(vendor).ofType(`x.${vendor}.instruction.dropped`)).toEqual([]);
    const handover = f.engine.deliver(vendor, 't1', 'PreToolUse');
    expect(handover?.text).toContain('wait for me');
    await handover?.settle(true);
    const delivered = f.channel(vendor).ofType(`x.${vendor}.instruction.delivered`);
    expect(delivered.map((e) => [e.cause, (e.data as { queued_ms: number }).queued_ms])).toEqual([[cmd.id, expiry * 10]]);
  });

  it('drops after the idle expiry for a vendor with a session-end moment too, since some modes never send it', async () => {
    f.see('qwen-code', 'q1');
    await f.engine.handleInstruct('qwen-code', instruct('qwen-code', 'q1', 'never ends'));
    const expiry = f.settings.get('steering.idleExpiryMs');
    f.clock.now += expiry - 1;
    expect(f.engine.sweepIdle()).toBe(0);
    expect(f.repo.countQueued('qwen-code', 'q1')).toBe(1);
    f.clock.now += 1;
    expect(f.engine.sweepIdle()).toBe(1);
    expect(f.channel('qwen-code').ofType('x.qwen-code.instruction.dropped')[0].data).toMatchObject({ reason: 'session-idle' });
  });
});

describe('restart', () => {
  it('keeps queued instructions across a restart and delivers them on the next eligible hook', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', 'survive');
    await f.engine.handleInstruct('claude-code', cmd);
    const dir = f.dir;
    f.killSwitch.close();
    f.db.close();
    const again = steeringFixture({ dir, now: f.clock.now + 5_000 });
    try {
      expect(again.engine.reconcile()).toBe(0);
      expect(await handOver(again, 's1', 'SessionStart')).toBe('survive');
      expect(again.channel('claude-code').ofType('x.claude-code.instruction.delivered')[0]).toMatchObject({
        cause: cmd.id,
        data: { queued_ms: 5_000, moment: 'SessionStart' },
      });
      // The recorded ack survives too: a retry after the restart gets the same bytes.
      await again.engine.handleInstruct('claude-code', cmd);
      expect(again.channel('claude-code').ofType('control.accepted')).toHaveLength(1);
      expect(again.repo.findAck(cmd.source, cmd.id)).not.toBeNull();
    } finally {
      again.close();
      rmSync(dir, { recursive: true, force: true });
      f = steeringFixture();
    }
  });

  it('drops what a previous run left for a session that ended meanwhile', async () => {
    f.see('claude-code', 's1');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'stale'));
    f.sessions.setState(sessionSource('claude-code', 's1'), 's1', 'ended');
    expect(f.engine.reconcile()).toBe(1);
    expect(cc().ofType('x.claude-code.instruction.dropped')[0].data).toMatchObject({ reason: 'session-ended' });
  });

  it('drops what a previous run left when steering is now off', async () => {
    f.see('claude-code', 's1');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'stale'));
    f.settings.set({ 'features.steering': false });
    cc().sent.length = 0;
    expect(f.engine.reconcile()).toBe(1);
    expect(cc().ofType('x.claude-code.instruction.dropped')[0].data).toMatchObject({ reason: 'steering-disabled' });
  });

  it('drops by idle expiry across a restart, a session-end vendor last seen before this daemon run', async () => {
    f.see('claude-code', 's1');
    await f.engine.handleInstruct('claude-code', instruct('claude-code', 's1', 'orphan'));
    const dir = f.dir;
    const lastSeen = f.clock.now;
    f.killSwitch.close();
    f.db.close();
    const expiry = 30 * 60_000;
    const again = steeringFixture({ dir, now: lastSeen + expiry });
    try {
      expect(again.engine.sweepIdle()).toBe(1);
      expect(again.channel('claude-code').ofType('x.claude-code.instruction.dropped')[0].data).toMatchObject({ reason: 'session-idle' });
    } finally {
      again.close();
      rmSync(dir, { recursive: true, force: true });
      f = steeringFixture();
    }
  });
});

describe('honest hand-over', () => {
  it('records nothing as delivered until the reply was written, and holds the instructions from other hooks meanwhile', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', 'in flight');
    await f.engine.handleInstruct('claude-code', cmd);
    const handover = f.engine.deliver('claude-code', 's1', 'PreToolUse');
    expect(handover?.text).toBe('in flight');
    expect(f.repo.get(cmd.source, cmd.id)?.state).toBe('handing');
    expect(cc().ofType('x.claude-code.instruction.delivered')).toHaveLength(0);
    // A second hook racing this one gets nothing.
    expect(f.engine.deliver('claude-code', 's1', 'PostToolUse')).toBeNull();
    await handover!.settle(true);
    await handover!.settle(true);
    expect(f.repo.get(cmd.source, cmd.id)).toMatchObject({ state: 'delivered', moment: 'PreToolUse' });
    expect(cc().ofType('x.claude-code.instruction.delivered')).toHaveLength(1);
  });

  it('drops (reply-not-written) what a reply that never left was carrying, and never reports it delivered', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', 'lost on the wire');
    await f.engine.handleInstruct('claude-code', cmd);
    expect(await handOver(f, 's1', 'PreToolUse', false)).toBe('lost on the wire');
    expect(f.repo.get(cmd.source, cmd.id)).toMatchObject({ state: 'dropped', reason: 'reply-not-written' });
    expect(cc().ofType('x.claude-code.instruction.delivered')).toHaveLength(0);
    expect(cc().ofType('x.claude-code.instruction.dropped')[0]).toMatchObject({ cause: cmd.id, data: { reason: 'reply-not-written' } });
    expect(f.engine.deliver('claude-code', 's1', 'PostToolUse')).toBeNull();
  });

  it('settles an instruction caught mid-hand-over by a restart as dropped (daemon-restart-unconfirmed), never sent again', async () => {
    f.see('claude-code', 's1');
    const cmd = instruct('claude-code', 's1', 'was it read?');
    await f.engine.handleInstruct('claude-code', cmd);
    expect(f.engine.deliver('claude-code', 's1', 'PreToolUse')).not.toBeNull();
    // The daemon dies here: the reply may or may not have reached the agent.
    const dir = f.dir;
    f.killSwitch.close();
    f.db.close();
    const again = steeringFixture({ dir, now: f.clock.now + 1_000 });
    try {
      expect(again.engine.reconcile()).toBe(1);
      expect(again.repo.get(cmd.source, cmd.id)).toMatchObject({ state: 'dropped', reason: 'daemon-restart-unconfirmed' });
      expect(again.channel('claude-code').ofType('x.claude-code.instruction.dropped')[0]).toMatchObject({
        cause: cmd.id,
        data: { reason: 'daemon-restart-unconfirmed' },
      });
      expect(again.engine.deliver('claude-code', 's1', 'UserPromptSubmit')).toBeNull();
      expect(again.audit.query({ action: 'instruct.dropped' }).rows[0]).toMatchObject({ commandId: cmd.id, actor: 'daemon' });
    } finally {
      again.close();
      rmSync(dir, { recursive: true, force: true });
      f = steeringFixture();
    }
  });
});

describe('drain', () => {
  it('nacks commands that arrive once the drain began (busy, shutting down) and awaits the decisions under way', async () => {
    f.see('claude-code', 's1');
    const before = instruct('claude-code', 's1', 'just in time');
    const deciding = f.engine.handleInstruct('claude-code', before);
    const drained = f.engine.drain();
    const late = instruct('claude-code', 's1', 'too late');
    await f.engine.handleInstruct('claude-code', late);
    await drained;
    await deciding;
    const acks = cc().events().filter((e) => e.type.startsWith('control.'));
    expect(acks.map((e) => [e.cause, e.type])).toEqual([
      [before.id, 'control.accepted'],
      [late.id, 'control.rejected'],
    ]);
    expect(acks[1].data).toEqual({ reason: 'busy', detail: 'the daemon is shutting down' });
    expect(f.repo.queued('claude-code', 's1').map((q) => q.text)).toEqual(['just in time']);
  });
});
