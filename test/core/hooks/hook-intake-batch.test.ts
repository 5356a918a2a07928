/** The hook intake's batching on its own: a full batch goes after its turn's replies; a short one waits for the window. */
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { isVendorId } from '../../../common/vendors';
import { HookIntake } from '../../../main/core/hooks/hook-intake';
import type { HookCall } from '../../../main/core/vendors/types';
import type { IntakeLog } from '../../../main/core/store/intake-log';
import { createLogger } from '../../../main/core/logger';

function intake(maxBatch: number, windowMs: number, failAppend = false, timer?: () => number) {
  let seq = 0;
  const consumed: number[] = [];
  const handled: { payload: unknown; at: number }[] = [];
  const calls: unknown[] = [];
  const log = {
    append: () => {
      if (failAppend) throw new Error('disk full');
      return ++seq;
    },
    consumed: (s: number) => consumed.push(s),
    close: () => undefined,
  } as unknown as IntakeLog;
  let now = 1_000;
  const it = new HookIntake({
    log,
    plainReply: (_vendor, payload) => ((payload as { plain?: boolean }).plain === false ? null : { reply: {}, call: payload as HookCall }),
    handle: async (_vendor, payload, at, call) => {
      handled.push({ payload, at });
      calls.push(call);
    },
    commitNow: () => undefined,
    clock: () => now++,
    logger: createLogger('test'),
    windowMs,
    maxBatch,
    isVendor: isVendorId,
    now: timer,
  });
  return { it, consumed, handled, calls };
}

describe('hook intake batches', () => {
  it('handles a full batch right after the turn that filled it, in order, at the times the calls came', async () => {
    const { it: i, consumed, handled } = intake(3, 600_000);
    for (const n of [1, 2, 3]) expect(i.take('claude-code', Buffer.from('{}'), { n })).toEqual({});
    expect(handled).toEqual([]);
    await nextTurn();
    expect(handled).toEqual([
      { payload: { n: 1 }, at: 1_000 },
      { payload: { n: 2 }, at: 1_001 },
      { payload: { n: 3 }, at: 1_002 },
    ]);
    expect(consumed).toEqual([3]);
    expect(i.waiting).toBe(0);
  });

  it('hands each call to its handler as parsed when it was taken (never parsed twice), a recovered record unparsed', async () => {
    const { it: i, calls } = intake(2, 600_000);
    const payloads = [{ n: 1 }, { n: 2 }];
    for (const p of payloads) i.take('claude-code', Buffer.from('{}'), p);
    await nextTurn();
    expect(calls[0]).toBe(payloads[0]);
    expect(calls[1]).toBe(payloads[1]);
    i.recover([{ seq: 9, body: Buffer.from('claude-code\n5\n{"n":3}') }]);
    await nextTurn();
    expect(calls).toHaveLength(3);
    expect(calls[2]).toBeUndefined();
  });

  it('hands a background batch on to the next turn once it held the loop for the step budget, in order, ahead of later calls', async () => {
    // Each clock reading is 5 ms after the last: every call takes longer than the budget.
    let clock = 0;
    const { it: i, consumed, handled } = intake(3, 600_000, false, () => (clock += 5));
    for (const n of [1, 2, 3]) i.take('claude-code', Buffer.from('{}'), { n });
    await nextTurn();
    expect(handled.map((h) => h.payload)).toEqual([{ n: 1 }]);
    expect(consumed).toEqual([1]);
    expect(i.waiting).toBe(2);
    // A call taken meanwhile waits behind the rest of the batch.
    i.take('claude-code', Buffer.from('{}'), { n: 4 });
    await nextTurn();
    expect(handled.map((h) => h.payload)).toEqual([{ n: 1 }, { n: 2 }]);
    // A drain something waits on (another call, a request, shutdown) handles all that is left at once.
    await i.drain(true);
    expect(handled.map((h) => h.payload)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
    expect(consumed).toEqual([1, 2, 4]);
    expect(i.waiting).toBe(0);
    await nextTurn();
    expect(handled).toHaveLength(4);
  });

  it('leaves a short batch for its window', async () => {
    const { it: i, handled } = intake(3, 30);
    i.take('claude-code', Buffer.from('{}'), { n: 1 });
    await nextTurn();
    expect(handled).toEqual([]);
    await new Promise((r) => setTimeout(r, 60));
    expect(handled.map((h) => h.payload)).toEqual([{ n: 1 }]);
  });

  it('takes nothing that is not plain, nor what it could not make durable', () => {
    expect(intake(3, 600_000).it.take('claude-code', Buffer.from('{}'), { plain: false })).toBeNull();
    const failing = intake(3, 600_000, true);
    expect(failing.it.take('claude-code', Buffer.from('{}'), { n: 1 })).toBeNull();
    expect(failing.it.waiting).toBe(0);
  });

  it('hands back what it took when closed, and takes no more', async () => {
    const { it: i, handled } = intake(3, 600_000);
    i.take('claude-code', Buffer.from('{}'), { n: 1 });
    await i.close();
    expect(handled.map((h) => h.payload)).toEqual([{ n: 1 }]);
    expect(i.take('claude-code', Buffer.from('{}'), { n: 2 })).toBeNull();
  });
});
