/** The check of events built by typed emitters: what came from outside is bounded and routable. */
import { describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { validateTypedEvent } from '../../../main/core/aep/typed-event';

const event = (extra: Record<string, unknown> = {}): AepEvent =>
  ({
    aep: '0.1',
    id: '01JTESTTYPED0000000000001',
    type: 'tool.requested',
    time: '2026-07-03T10:15:04.221Z',
    source: 'aep://localhost/agent/claude-code/session/s1',
    agent: 'claude-code',
    session: 's1',
    subject: 'Bash',
    data: {},
    ...extra,
  }) as unknown as AepEvent;

describe('validateTypedEvent', () => {
  it('takes a well-formed event', () => {
    expect(validateTypedEvent(event()).ok).toBe(true);
  });

  it('refuses a control character in the routing strings a vendor names (session, run, step)', () => {
    for (const key of ['session', 'run', 'step'])
      for (const bad of ['a\nb', 'a\rb', 'a\u0000b', 'a\u007fb']) {
        const result = validateTypedEvent(event({ [key]: bad }));
        expect([key, result.ok ? '' : result.error.message]).toEqual([key, expect.stringContaining('control character')]);
      }
  });

  it('takes a line break in the subject (free text)', () => {
    expect(validateTypedEvent(event({ subject: 'two\nlines' })).ok).toBe(true);
  });

  it('bounds the length of every envelope string, its own included', () => {
    for (const [key, length] of [
      ['session', 513],
      ['run', 513],
      ['id', 513],
      ['source', 2_049],
      ['subject', 2_049],
      ['cause', 513],
    ] as const) {
      const result = validateTypedEvent(event({ [key]: 'x'.repeat(length) }));
      expect([key, result.ok ? '' : result.error.message]).toEqual([key, expect.stringContaining(`${key} is ${length} characters long`)]);
    }
    const ext = validateTypedEvent(event({ model: 'x'.repeat(4_097) }));
    expect(ext.ok ? '' : ext.error.message).toMatch(/extension attribute "model" is 4097 characters/);
  });

  it('refuses an empty or non-string session, run, step or subject', () => {
    for (const key of ['session', 'run', 'step', 'subject'])
      for (const bad of ['', 7]) {
        const result = validateTypedEvent(event({ [key]: bad }));
        expect([key, result.ok]).toEqual([key, false]);
      }
  });
});
