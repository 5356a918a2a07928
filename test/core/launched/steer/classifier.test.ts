import { describe, expect, it } from 'vitest';
import {
  INITIAL,
  reduce,
  type Effect,
  type WireObservation,
} from '../../../../main/core/launched/steer/classifier';
import { UsageLedger } from '../../../../main/core/launched/steer/usage';
import { loadWire, outcomes, replayAcp, terminals, type Replay } from './wire';

const run = (...obs: WireObservation[]) => {
  let state = INITIAL;
  const effects: Effect[] = [];
  for (const o of obs) {
    const step = reduce(state, o);
    state = step.state;
    // The foreground prompt's own run-started is setup, not what a rule is about.
    if (o.kind !== 'prompt-sent') effects.push(...step.effects);
  }
  return { state, effects };
};

const usageOf = (replay: Replay) => {
  const ledger = new UsageLedger();
  for (const e of replay.effects) if (e.kind === 'usage') ledger.record(e.rpc, e.run, e.usage);
  return ledger;
};

describe('steer classifier: recorded wire (Claude bridge, promptQueueing)', () => {
  for (const name of [
    'claude-agent-acp-0.101.0.steer.folded',
    'claude-agent-acp-0.101.0-cli2.1.175.steer.folded',
    'claude-agent-acp-0.101.0-sdkcli.steer.folded',
    'zed-claude-agent-acp-0.23.1.steer.folded',
  ]) {
    it(`${name}: folded → Steered, the early settlement suppressed, one run finished, usage once`, () => {
      const replay = replayAcp(loadWire(name));
      expect(outcomes(replay)).toEqual([['cmd-4', 'steered']]);
      expect(
        replay.effects
          .filter((e) => e.kind === 'suppressed')
          .map((e) => (e as { rpc: string }).rpc),
      ).toEqual(['3']);
      expect(terminals(replay)).toEqual(['run-finished:run-3']);
      // No run of its own for the steer: it reused its predecessor's identity.
      expect(
        replay.effects
          .filter((e) => e.kind === 'run-started')
          .map((e) => (e as { run: string }).run),
      ).toEqual(['run-3']);
      const ledger = usageOf(replay);
      expect(ledger.all().map((e) => [e.reportedOn, e.run])).toEqual([['4', 'run-3']]);
      expect(ledger.total().totalTokens).toBe(6);
      expect(replay.state.slots).toEqual([]);
    });
  }

  it('classifies the sdkcli fold from the wire even though a text chunk arrived before the early settlement', () => {
    const file = loadWire('claude-agent-acp-0.101.0-sdkcli.steer.folded');
    const settle = file.wire.findIndex((l) => l.msg['id'] === 3 && 'result' in l.msg);
    const chunksBefore = file.wire
      .slice(0, settle)
      .filter(
        (l) =>
          (l.msg['params'] as { update?: { sessionUpdate?: string } } | undefined)?.update
            ?.sessionUpdate === 'agent_message_chunk',
      );
    expect(chunksBefore.length).toBeGreaterThan(0);
    expect(outcomes(replayAcp(file))).toEqual([['cmd-4', 'steered']]);
  });

  it('notool-deferred: the predecessor answers itself → Deferred, two runs in submission order, both usages', () => {
    const replay = replayAcp(loadWire('claude-agent-acp-0.101.0.steer.notool-deferred'));
    expect(outcomes(replay)).toEqual([['cmd-4', 'deferred']]);
    expect(terminals(replay)).toEqual(['run-finished:run-3', 'run-finished:run-4']);
    expect(
      replay.effects.filter((e) => e.kind === 'run-started').map((e) => (e as { run: string }).run),
    ).toEqual(['run-3', 'run-4']);
    expect(replay.effects.some((e) => e.kind === 'suppressed')).toBe(false);
    const ledger = usageOf(replay);
    expect(ledger.total('run-3').totalTokens).toBe(3);
    expect(ledger.total('run-4').totalTokens).toBe(3);
  });

  it('double steer: each early zero settlement folds into the next; one run finishes with the last prompt usage', () => {
    const replay = replayAcp(loadWire('claude-agent-acp-0.101.0.double-steer.queued'));
    expect(outcomes(replay)).toEqual([
      ['cmd-4', 'steered'],
      ['cmd-5', 'steered'],
    ]);
    expect(terminals(replay)).toEqual(['run-finished:run-3']);
    expect(
      usageOf(replay)
        .all()
        .map((e) => e.reportedOn),
    ).toEqual(['5']);
  });

  it('cancel during a steer ends both: the run is cancelled once, the steer cancelled, the next prompt is its own run', () => {
    const replay = replayAcp(loadWire('claude-agent-acp-0.101.0.steer-cancel'));
    expect(outcomes(replay)).toEqual([['cmd-4', 'cancelled']]);
    expect(terminals(replay)).toEqual(['run-cancelled:run-3', 'run-finished:run-5']);
    expect(
      replay.effects.filter((e) => e.kind === 'suppressed').map((e) => (e as { rpc: string }).rpc),
    ).toEqual(['4']);
    expect(replay.state).toEqual(INITIAL);
  });

  it('sequential prompts never produce a steer outcome', () => {
    const replay = replayAcp(loadWire('claude-agent-acp-0.101.0.sequential'));
    expect(outcomes(replay)).toEqual([]);
    expect(terminals(replay)).toEqual(['run-finished:run-3', 'run-finished:run-4']);
  });

  it('codex-acp concurrent prompt (recorded without any advertisement) reads as deferred', () => {
    const replay = replayAcp(loadWire('codex-acp-2.6.0.steer.concurrent'));
    expect(outcomes(replay)).toEqual([['cmd-4', 'deferred']]);
    expect(terminals(replay)).toEqual(['run-finished:run-3', 'run-finished:run-4']);
  });
});

describe('steer classifier: rules', () => {
  const zero = { inputTokens: 0, outputTokens: 0, totalTokens: 0 };
  const real = { inputTokens: 2, outputTokens: 4, totalTokens: 6 };
  const fg: WireObservation = { kind: 'prompt-sent', rpc: '1', run: 'r1' };
  const steer: WireObservation = { kind: 'steer-sent', rpc: '2', commandId: 'c2', ownRun: 'r2' };

  it('an end_turn without any usage is not proof of a fold: deferred', () => {
    const { effects } = run(fg, steer, {
      kind: 'settled',
      rpc: '1',
      stopReason: 'end_turn',
      usage: null,
    });
    expect(effects).toContainEqual(
      expect.objectContaining({ kind: 'outcome', commandId: 'c2', outcome: 'deferred' }),
    );
  });

  it('a zero-usage settlement with no steer outstanding is an ordinary (empty) completion', () => {
    const { effects } = run(fg, { kind: 'settled', rpc: '1', stopReason: 'end_turn', usage: zero });
    expect(effects.map((e) => e.kind)).toEqual(['run-finished']);
  });

  it('a max_tokens stop with zero usage is the predecessor own end, not a fold', () => {
    const { effects } = run(fg, steer, {
      kind: 'settled',
      rpc: '1',
      stopReason: 'max_tokens',
      usage: zero,
    });
    expect(effects).toContainEqual(
      expect.objectContaining({ kind: 'outcome', outcome: 'deferred' }),
    );
  });

  it('a steer that settles first with zero usage folded into the still-running predecessor', () => {
    const { effects, state } = run(fg, steer, {
      kind: 'settled',
      rpc: '2',
      stopReason: 'end_turn',
      usage: zero,
    });
    expect(effects).toContainEqual(
      expect.objectContaining({ kind: 'outcome', commandId: 'c2', outcome: 'steered' }),
    );
    expect(state.slots.map((s) => s.rpc)).toEqual(['1']);
    const end = reduce(state, { kind: 'settled', rpc: '1', stopReason: 'end_turn', usage: real });
    expect(end.effects.map((e) => e.kind)).toEqual(['usage', 'run-finished']);
  });

  it('a refused concurrent prompt (-32600/-32601/-32602) is deferred and requeued, never an error', () => {
    const { effects } = run(fg, steer, {
      kind: 'rejected',
      rpc: '2',
      code: -32602,
      message: 'busy',
    });
    expect(effects).toEqual([
      expect.objectContaining({ kind: 'outcome', commandId: 'c2', outcome: 'deferred' }),
      { kind: 'requeue', commandId: 'c2', reason: 'refused concurrent prompt' },
    ]);
  });

  it('any other error answer to a steer is Errored and never requeued', () => {
    const { effects } = run(fg, steer, {
      kind: 'rejected',
      rpc: '2',
      code: -32603,
      message: 'Internal error',
    });
    expect(effects).toEqual([expect.objectContaining({ kind: 'outcome', outcome: 'errored' })]);
  });

  it('an ambiguous write failure is Errored (not re-sent); a provably unwritten steer is Degraded and requeued', () => {
    expect(
      run(fg, steer, { kind: 'write-failed', rpc: '2', written: true, message: 'EPIPE' }).effects,
    ).toEqual([expect.objectContaining({ kind: 'outcome', outcome: 'errored' })]);
    expect(
      run(fg, steer, {
        kind: 'write-failed',
        rpc: '2',
        written: false,
        message: 'closed',
      }).effects.map((e) => e.kind),
    ).toEqual(['outcome', 'requeue']);
  });

  it('the agent dying mid-steer fails the steer and the run once', () => {
    const { effects, state } = run(fg, steer, {
      kind: 'connection-lost',
      reason: 'agent exited with code 1',
    });
    expect(effects).toEqual([
      { kind: 'run-failed', run: 'r1', reason: 'agent exited with code 1' },
      expect.objectContaining({ kind: 'outcome', commandId: 'c2', outcome: 'failed' }),
    ]);
    expect(state).toEqual(INITIAL);
  });

  it('the predecessor failing while a steer rides on it: the steer runs as its own turn (deferred)', () => {
    const { effects } = run(fg, steer, {
      kind: 'rejected',
      rpc: '1',
      code: -32603,
      message: 'aborted',
    });
    expect(effects).toEqual([
      { kind: 'run-failed', run: 'r1', reason: 'aborted' },
      { kind: 'run-started', run: 'r2', rpc: '2', commandId: 'c2' },
      expect.objectContaining({ kind: 'outcome', outcome: 'deferred', run: 'r2' }),
    ]);
  });

  it('ignores settlements of prompts it never saw', () => {
    expect(
      reduce(INITIAL, { kind: 'settled', rpc: '9', stopReason: 'end_turn', usage: null }),
    ).toEqual({ state: INITIAL, effects: [] });
  });
});
