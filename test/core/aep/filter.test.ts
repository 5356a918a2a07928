import { describe, expect, it } from 'vitest';
import { matchesFilter, parseFilter } from '../../../main/core/aep';
import type { AepEvent } from '../../../common/aep/envelope';
import { fixture } from './corpus';

interface MatchCase {
  readonly name: string;
  readonly filter: unknown;
  readonly event: AepEvent;
  readonly match: boolean;
}
const corpus = fixture<{ match: MatchCase[]; invalid: { name: string; filter: unknown }[] }>(
  'attr-match/cases.json',
);

const verdict = (filter: unknown, event: Record<string, unknown>): boolean | string => {
  const parsed = parseFilter(filter);
  return parsed.ok ? matchesFilter(parsed.value, event as AepEvent) : parsed.error.message;
};

describe('attr-match corpus (attr-match/cases.json)', () => {
  it.each(corpus.match.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    expect(verdict(c.filter, c.event)).toBe(c.match);
  });

  it.each(corpus.invalid.map((c) => [c.name, c] as const))('fails closed: %s', (_name, c) => {
    const parsed = parseFilter(c.filter);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) {
      expect(parsed.error.code).toBe('invalid-filter');
      expect(parsed.error.message).toMatch(/^AEP-000[13] §/);
    }
  });
});

describe('parseFilter and matchesFilter beyond the corpus', () => {
  it('keeps the original filter for echo', () => {
    const spec = { type: 'tool.completed' };
    const parsed = parseFilter(spec);
    expect(parsed.ok && parsed.value.spec).toBe(spec);
  });

  it('rejects non-object filters', () => {
    for (const f of [null, [], 'type', 3]) expect(parseFilter(f).ok).toBe(false);
  });

  it('compares without coercion: epoch "0" is not 0', () => {
    expect(verdict({ epoch: 0 }, { type: 'run.started', epoch: 0 })).toBe(true);
    expect(verdict({ epoch: 1 }, { type: 'run.started' })).toBe(false);
    expect(verdict({ acmeflag: 'true' }, { type: 'run.started', acmeflag: true })).toBe(false);
    expect(verdict({ acmeflag: true }, { type: 'run.started', acmeflag: true })).toBe(true);
  });

  it('applies the capture default before matching', () => {
    expect(verdict({ capture: 'metadata' }, { type: 'run.started' })).toBe(true);
    expect(verdict({ capture: ['redacted', 'full'] }, { type: 'run.started' })).toBe(false);
  });

  it('matches severity by list and by band, with inclusive bounds', () => {
    expect(verdict({ severity: ['warning', 'error'] }, { type: 'x', severity: 'error' })).toBe(
      true,
    );
    expect(verdict({ severity: { lte: 'notice' } }, { type: 'x', severity: 'notice' })).toBe(true);
    expect(verdict({ severity: { lte: 'notice' } }, { type: 'x', severity: 'warning' })).toBe(
      false,
    );
  });

  it('mixes exact types and prefix patterns in one inclusion array', () => {
    const f = { type: ['tool.denied', 'attention.*'] };
    expect(verdict(f, { type: 'tool.denied' })).toBe(true);
    expect(verdict(f, { type: 'attention.timeout' })).toBe(true);
    expect(verdict(f, { type: 'attention' })).toBe(false);
    expect(verdict(f, { type: 'tool.completed' })).toBe(false);
  });

  it.each([
    ['a float predicate', { epoch: 1.5 }],
    ['a null predicate', { session: null }],
    ['an object on a non-severity key', { agent: { gte: 'a' } }],
    ['an unknown severity level', { severity: 'fatal' }],
    ['an unknown severity bound', { severity: { gte: 'loud' } }],
    ['an empty severity comparison', { severity: {} }],
    ['an unknown capture level', { capture: 'everything' }],
    ['a mid-string type wildcard', { type: 'attent*' }],
    ['an uppercase extension key', { AcmeRegion: 'eu' }],
    ['an extension key over 20 characters', { acmeveryveryverylongext1: 'v' }],
    ['a nested array', { agent: [['a']] }],
  ])('fails closed on %s', (_name, filter) => {
    expect(parseFilter(filter).ok).toBe(false);
  });
});
