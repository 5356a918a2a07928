import { describe, expect, it } from 'vitest';
import { INSTRUCTION_SEPARATOR, planDelivery } from '../../../main/core/steering/delivery-plan';

const q = (...texts: string[]) => texts.map((text, i) => ({ id: i, text }));

describe('planDelivery', () => {
  it('joins the whole queue in arrival order when it fits', () => {
    expect(planDelivery(q('a', 'b', 'c'), 100)).toEqual({ take: q('a', 'b', 'c'), text: ['a', 'b', 'c'].join(INSTRUCTION_SEPARATOR) });
  });

  it('counts the separators against the cap', () => {
    // 'aa' + '\n\n' + 'bb' is 6 characters: a cap of 5 takes only the first.
    expect(planDelivery(q('aa', 'bb'), 5)?.take.map((t) => t.text)).toEqual(['aa']);
    expect(planDelivery(q('aa', 'bb'), 6)?.text).toBe('aa\n\nbb');
  });

  it('stops at the first instruction that does not fit instead of skipping ahead', () => {
    expect(planDelivery(q('aaaa', 'bbbbbbbb', 'c'), 10)?.take.map((t) => t.text)).toEqual(['aaaa']);
  });

  it('returns null for an empty queue or when even the first does not fit', () => {
    expect(planDelivery([], 10)).toBeNull();
    expect(planDelivery(q('toolong'), 3)).toBeNull();
  });
});
