/** Bounded JSON parsing and the envelope string bounds (issue 8 §1, §4). */
import { describe, expect, it } from 'vitest';
import {
  depthExceededAt,
  envelopeBoundsError,
  exceedsDepth,
  MAX_JSON_DEPTH,
  parseBoundedJson,
  parseEventJson,
  validateEvent,
} from '../../../main/core/aep';

const event = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  aep: '0.1',
  id: '01JTESTBOUNDS00000000000001',
  type: 'progress.status',
  time: '2026-07-03T10:15:04.221Z',
  source: 'aep://test/agent/tester',
  agent: 'tester',
  session: 's1',
  seq: 1,
  ...extra,
});

describe('parseBoundedJson', () => {
  it('takes nesting up to the bound and refuses one level more, before building anything', () => {
    const nested = (n: number): string => '['.repeat(n) + ']'.repeat(n);
    expect(parseBoundedJson(nested(MAX_JSON_DEPTH)).ok).toBe(true);
    const deeper = parseBoundedJson(nested(MAX_JSON_DEPTH + 1));
    expect(deeper.ok).toBe(false);
    if (!deeper.ok)
      expect(deeper.error.message).toBe(
        `JSON nests deeper than 128 levels (at offset 128); this relay takes at most 128`,
      );
    expect(parseBoundedJson(nested(1_000_000)).ok).toBe(false);
  });

  it('ignores brackets inside strings, escaped quotes included', () => {
    const text = JSON.stringify({
      a: '['.repeat(1_000),
      b: 'say \\"[[[\\" {{{',
      c: ['\\\\', '"[', '\\"{'],
    });
    expect(depthExceededAt(text, 3)).toBe(-1);
    expect(parseBoundedJson(text, { maxDepth: 2 }).ok).toBe(true);
    expect(depthExceededAt('{"a\\\\":[[1]]}', 2)).toBe(8);
  });

  it('reports malformed JSON in the parser words', () => {
    const r = parseBoundedJson('{"a":');
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^malformed JSON: /);
    expect(parseBoundedJson('"unterminated').ok).toBe(false);
  });

  it('exceedsDepth bounds values built in process (cycles included)', () => {
    let v: unknown = 1;
    for (let i = 0; i < 200; i++) v = { v };
    expect(exceedsDepth(v)).toBe(true);
    expect(exceedsDepth({ a: [{ b: 1 }] })).toBe(false);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(exceedsDepth(cyclic)).toBe(true);
  });

  it('parseEventJson refuses a deep event with invalid-event', () => {
    const r = parseEventJson(
      JSON.stringify(event()).replace(
        '"seq":1',
        `"seq":1,"data":${'{"a":'.repeat(5_000)}1${'}'.repeat(5_000)}`,
      ),
    );
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('invalid-event');
  });
});

describe('envelope string bounds', () => {
  it('bounds the length of every routing string and extension strings', () => {
    expect(envelopeBoundsError(event())).toBeUndefined();
    expect(envelopeBoundsError(event({ id: 'x'.repeat(513) }))).toMatch(
      /^AEP-0001 §5.1 #2 \(relay bound\): id is 513 characters long/,
    );
    expect(envelopeBoundsError(event({ source: 'x'.repeat(2_049) }))).toMatch(
      /source is 2049 characters/,
    );
    expect(envelopeBoundsError(event({ session: 'x'.repeat(513) }))).toMatch(
      /session is 513 characters/,
    );
    expect(envelopeBoundsError(event({ ext: 'x'.repeat(4_097) }))).toMatch(
      /extension attribute "ext" is 4097 characters/,
    );
    expect(
      envelopeBoundsError(event({ session: 'x'.repeat(512), source: 'y'.repeat(2_048) })),
    ).toBeUndefined();
  });

  it('refuses control characters in routing strings, but not in subject', () => {
    for (const key of ['id', 'source', 'agent', 'session', 'run', 'step', 'cause']) {
      for (const bad of ['a\nb', 'a\rb', 'a\u0000b', 'a\u007fb'])
        expect([key, envelopeBoundsError(event({ [key]: bad }))]).toEqual([
          key,
          expect.stringContaining('control character'),
        ]);
    }
    expect(envelopeBoundsError(event({ subject: 'line\nbreak' }))).toBeUndefined();
    const refused = validateEvent(event({ session: 's\nid: forged' }));
    expect(refused.ok).toBe(false);
    expect(validateEvent(event({ session: 'ünïcode ✓ sessions stay' })).ok).toBe(true);
  });
});
