import { describe, expect, it } from 'vitest';
import { StreamChecker, validateStream } from '../../../main/core/aep';
import type { AepEvent } from '../../../common/aep/envelope';
import { goldenEvents } from './corpus';

const ev = (over: Record<string, unknown>): AepEvent =>
  ({
    aep: '0.1',
    id: 'E1',
    type: 'progress.status',
    time: '2026-07-03T10:00:00Z',
    source: 'aep://h/agent/a',
    agent: 'a',
    session: 's1',
    seq: 0,
    ...over,
  }) as AepEvent;

describe('StreamChecker', () => {
  it('accepts the golden corpus as one stream', () => {
    expect(validateStream(goldenEvents())).toEqual({ ok: true, value: undefined });
  });

  it('accepts a redelivered event (same source, id and content) without re-applying the position rule', () => {
    const checker = new StreamChecker();
    expect(checker.check(ev({ id: 'A', seq: 1 })).ok).toBe(true);
    expect(checker.check(ev({ id: 'B', seq: 2 })).ok).toBe(true);
    expect(checker.check(ev({ id: 'A', seq: 1 })).ok).toBe(true);
  });

  it('scopes ids by source: two emitters may mint the same id', () => {
    expect(
      validateStream([
        ev({ id: 'A' }),
        ev({ id: 'A', source: 'aep://h/agent/b', agent: 'b', seq: 9 }),
      ]).ok,
    ).toBe(true);
  });

  it('allows a seq restart in a new epoch, and gaps', () => {
    expect(
      validateStream([
        ev({ id: 'A', seq: 5 }),
        ev({ id: 'B', seq: 9 }),
        ev({ id: 'C', seq: 0, epoch: 1 }),
      ]).ok,
    ).toBe(true);
  });

  it('rejects a single invalid event with its envelope rule', () => {
    const result = validateStream([ev({ id: 'A' }), ev({ id: 'B', seq: 1, severity: 'loud' })]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/^event 1: AEP-0001 §8\.1/);
  });

  it('lets a session end once its attention requests are resolved', () => {
    const stream = [
      ev({
        id: 'R',
        type: 'attention.requested',
        seq: 1,
        data: { kind: 'permission', prompt: 'a requests permission: Bash' },
      }),
      ev({
        id: 'S',
        type: 'attention.resolved',
        subject: 'R',
        seq: 2,
        data: { resolution: 'dismissed' },
      }),
      ev({ id: 'T', type: 'session.ended', seq: 3, data: { reason: 'normal' } }),
    ];
    expect(validateStream(stream).ok).toBe(true);
  });

  it('does not demand a required free-text form value the answer legitimately dropped at metadata', () => {
    const fields = [{ id: 'name', type: 'string', label: 'Name', required: true }];
    const stream = [
      ev({
        id: 'R',
        type: 'attention.requested',
        seq: 1,
        capture: 'redacted',
        data: { kind: 'form', prompt: 'p', fields },
      }),
      ev({
        id: 'A',
        type: 'attention.answered',
        subject: 'R',
        seq: 2,
        data: { answer: { values: {} } },
      }),
    ];
    expect(validateStream(stream).ok).toBe(true);
    const redactedAnswer = ev({
      id: 'A',
      type: 'attention.answered',
      subject: 'R',
      seq: 2,
      capture: 'redacted',
      data: { answer: { values: {} } },
    });
    const result = validateStream([stream[0], redactedAnswer]);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain('required field "name" has no value');
  });
});
