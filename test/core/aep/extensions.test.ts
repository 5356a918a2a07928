import { describe, expect, it } from 'vitest';
import { validateEvent, withExtensions } from '../../../main/core/aep';
import type { AepEvent } from '../../../common/aep/envelope';

const event = {
  aep: '0.1',
  id: 'E1',
  type: 'run.started',
  time: '2026-07-03T10:00:00Z',
  source: 'aep://h/agent/a',
  agent: 'a',
  session: 's1',
  seq: 0,
} as AepEvent;

describe('withExtensions (AEP-0001 §5.4 producer guard)', () => {
  it('adds well-formed scalar extensions', () => {
    const result = withExtensions(event, { acmeregion: 'eu-1', acmeshard: 3, acmebeta: true });
    expect(result.ok && result.value).toEqual({
      ...event,
      acmeregion: 'eu-1',
      acmeshard: 3,
      acmebeta: true,
    });
    expect(result.ok && validateEvent(result.value).ok).toBe(true);
  });

  it.each([
    ['a core-name collision', { session: 'other' }, 'collides with a core attribute'],
    ['an ill-formed name', { 'acme-region': 'x' }, 'must match [a-z0-9]{1,20}'],
    ['a non-scalar value', { acmemeta: { k: 1 } }, 'must be a string, integer or boolean'],
    ['a float value', { acmeratio: 0.5 }, 'must be a string, integer or boolean'],
  ])('refuses %s', (_name, ext, message) => {
    const result = withExtensions(event, ext);
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain(message);
  });

  it('refuses to overwrite an extension already carrying a different value', () => {
    const first = withExtensions(event, { acmeregion: 'eu-1' });
    expect(first.ok).toBe(true);
    if (first.ok) expect(withExtensions(first.value, { acmeregion: 'us-2' }).ok).toBe(false);
  });
});
