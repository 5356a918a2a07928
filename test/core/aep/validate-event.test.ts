import { describe, expect, it } from 'vitest';
import { parseEventJson, validateEvent, validateStream } from '../../../main/core/aep';
import { fixture, goldenEvents, goldenLines } from './corpus';

interface InvalidCase {
  readonly name: string;
  readonly rule: string;
  readonly event?: Record<string, unknown>;
  readonly events?: Record<string, unknown>[];
}

/** What each invalid case's rejection must say: the rule it cites and the fact that broke it. */
const EXPECTED: Record<string, readonly [rule: string, fact: string]> = {
  'session-scoped without session': ['AEP-0001 §5.2', 'run.started must carry session'],
  'session-scoped without seq': ['AEP-0001 §5.2', 'run.started must carry seq'],
  'agent-scoped with session': ['AEP-0001 §5.2', 'found session'],
  'agent-scoped with seq': ['AEP-0001 §5.2', 'found seq'],
  'command with seq': ['AEP-0004 §2.2', 'control.cancel must omit seq'],
  'attention.routed with seq': ['AEP-0002 §7.3', 'attention.routed must omit seq'],
  'single-segment type': ['AEP-0001 §6', 'must have the form {category}.{rest}'],
  'unknown category': ['AEP-0002 §3', '"banana" in "banana.peeled" is not a registered category'],
  'uppercase in type': ['AEP-0001 §6', 'illegal token "Completed"'],
  'vendor type too short (x.vendor.verb)': ['AEP-0001 §6', 'x.{vendor}.{category}.{rest}'],
  'extension attribute name over 20 chars': [
    'AEP-0001 §5.4',
    '"acmeveryveryverylongext1" must match [a-z0-9]{1,20}',
  ],
  'extension attribute with object value': [
    'AEP-0001 §5.4',
    '"acmemeta" must carry a string, integer or boolean',
  ],
  'extension attribute name with illegal charset': [
    'AEP-0001 §5.4',
    '"acme_ext" must match [a-z0-9]{1,20}',
  ],
  'unknown severity': ['AEP-0001 §8.1', 'severity must be equal to one of the allowed values'],
  'malformed traceparent': ['AEP-0001 §5.1 #14', 'traceparent must be a W3C Trace Context value'],
  'unsupported envelope version': ['AEP-0001 §5.1 #1:', 'unsupported envelope version "0.2"'],
  'negative seq': ['AEP-0001 §5.1 #11', 'seq must be >= 0'],
  'form select field without choices': [
    'AEP-0002 §5 payload schema (attention.requested)',
    "data/fields/0 must have required property 'choices'",
  ],
  'form answered with a non-choice string for a select without other:true': [
    'AEP-0002 §5.3 attention.answered values rule',
    '"MariaDB" for select field "1" is not a choice id',
  ],
  'second run terminal (finished then cancelled)': [
    'AEP-0002 §2 convention 5',
    'run r_1 already has run.finished LC1B; run.cancelled LC1C',
  ],
  'run terminal repeated (failed twice, distinct events)': [
    'AEP-0002 §2 convention 5',
    'run.failed LC2B is a second terminal',
  ],
  'session ends with a dangling attention request': ['AEP-0002 §7.2', 'LC3A still pending'],
  'id collision within one emitter (same (source,id), different content)': [
    'AEP-0001 §5.1 #2 / §7.4',
    'id DUPC1',
  ],
  'seq regression without an epoch bump': ['AEP-0001 §7.2', 'seq 3 is not above 5 within epoch 0'],
  'epoch regression': ['AEP-0001 §7.2', 'epoch regressed from 1 to 0'],
  'second ack for one command (accepted twice, distinct events)': [
    'AEP-0004 §3',
    'control.accepted ACK1B',
  ],
  'conflicting ack decisions for one command (accepted then rejected)': [
    'AEP-0004 §3',
    'control.rejected ACK2B',
  ],
  'second session.ended for one session (distinct events)': [
    'AEP-0002 §2 convention 5',
    'session.ended SE2B is a second terminal',
  ],
  'agent.presence with an unregistered state': [
    'AEP-0002 §5 payload schema (agent.presence)',
    'data/state must be equal to one of the allowed values (online|offline|busy)',
  ],
  'agent.presence missing the required state': [
    'AEP-0002 §5 payload schema (agent.presence)',
    "must have required property 'state'",
  ],
  'agent.health with an unregistered status': [
    'AEP-0002 §5 payload schema (agent.health)',
    'data/status must be equal to one of the allowed values',
  ],
  'session.compacted with a non-integer token count': [
    'AEP-0002 §5 payload schema (session.compacted)',
    'data/estimated_token_count must be integer',
  ],
  'state.delta with a non-array delta': [
    'AEP-0002 §5 payload schema (state.delta)',
    'data/delta must be array',
  ],
  'run.finished cost missing the required currency': [
    'AEP-0002 §5 payload schema (run.finished)',
    "data/cost must have required property 'currency'",
  ],
  'tool.completed cost total is a string (amounts are numbers, not bare-float strings)': [
    'AEP-0002 §5 payload schema (tool.completed)',
    'data/cost/total must be number',
  ],
};

const invalidCases = fixture<{ cases: InvalidCase[] }>('invalid/cases.json').cases;

const base = {
  aep: '0.1',
  id: '01JX9YB0AAAA0000000000TEST',
  type: 'progress.status',
  time: '2026-07-03T10:00:00Z',
  source: 'aep://h/agent/a/session/s1',
  agent: 'a',
  session: 's1',
  seq: 0,
};

describe('validateEvent: golden corpus (golden/golden.jsonl)', () => {
  it.each(goldenEvents().map((e) => [e.id as string, e] as const))(
    'accepts golden event %s',
    (_id, event) => {
      const result = validateEvent(event);
      expect(result.ok ? 'valid' : result.error.message).toBe('valid');
    },
  );

  it('returns the very object it was given, typed', () => {
    const event = goldenEvents()[0];
    const result = validateEvent(event);
    expect(result.ok && result.value).toBe(event);
  });

  it('accepts every golden line through parseEventJson', () => {
    const failures = goldenLines().filter((line) => !parseEventJson(line).ok);
    expect(failures).toEqual([]);
  });
});

describe('validateEvent: invalid corpus (invalid/cases.json)', () => {
  it('knows the expected rejection of every case in the corpus', () => {
    expect(invalidCases.map((c) => c.name).filter((n) => !(n in EXPECTED))).toEqual([]);
  });

  it.each(invalidCases.filter((c) => c.event).map((c) => [c.name, c] as const))(
    'rejects "%s" for its stated rule',
    (name, c) => {
      const result = validateEvent(c.event);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const [rule, fact] = EXPECTED[name];
      expect(result.error.code).toBe('invalid-event');
      expect(result.error.message).toContain(rule);
      expect(result.error.message).toContain(fact);
    },
  );

  it.each(invalidCases.filter((c) => c.events).map((c) => [c.name, c] as const))(
    'rejects stream "%s" at its last event for its stated rule',
    (name, c) => {
      const events = c.events ?? [];
      // Every event is valid on its own and the stream is valid until the last one: the cross-event rule is what fails.
      for (const e of events) expect(validateEvent(e).ok).toBe(true);
      expect(validateStream(events.slice(0, -1)).ok).toBe(true);
      const result = validateStream(events);
      expect(result.ok).toBe(false);
      if (result.ok) return;
      const [rule, fact] = EXPECTED[name];
      expect(result.error.message).toContain(`event ${events.length - 1}:`);
      expect(result.error.message).toContain(rule);
      expect(result.error.message).toContain(fact);
    },
  );
});

describe('validateEvent: rules beyond the corpus', () => {
  const reject = (value: unknown): string => {
    const result = validateEvent(value);
    return result.ok ? 'accepted' : result.error.message;
  };

  it('rejects non-objects with a clear message', () => {
    for (const value of [null, 42, 'x', [base], undefined])
      expect(reject(value)).toBe('AEP-0001 §5: an event must be a JSON object');
  });

  it('rejects a null optional attribute: absent attributes are omitted, never null', () => {
    expect(reject({ ...base, subject: null })).toContain(
      'AEP-0001 §5.1 #4: subject is null; absent attributes must be omitted',
    );
    expect(reject({ ...base, severity: null })).toContain('§5.1 #15: severity is null');
  });

  it('rejects a missing required attribute by name', () => {
    const { agent: _agent, ...noAgent } = base;
    expect(reject(noAgent)).toBe('AEP-0001 §5.1 #7: required attribute agent is missing');
  });

  it('rejects non-integer and null extension values, accepts string, integer and boolean ones', () => {
    expect(reject({ ...base, acmex: 1.5 })).toContain(
      '"acmex" must carry a string, integer or boolean (scalar values only), got a non-integer number',
    );
    expect(reject({ ...base, acmex: null })).toContain('"acmex" must carry a string');
    expect(reject({ ...base, acmea: 'eu', acmeb: 3, acmec: true })).toBe('accepted');
  });

  it('requires a timestamp with a timezone and a real calendar date', () => {
    expect(reject({ ...base, time: '2026-07-03T10:00:00' })).toContain(
      'AEP-0001 §5.1 #5: time must match format "date-time"',
    );
    expect(reject({ ...base, time: '2026-02-30T10:00:00Z' })).toContain('§5.1 #5');
    expect(reject({ ...base, time: '2026-07-03T24:00:00Z' })).toContain('§5.1 #5');
    expect(reject({ ...base, time: '2024-02-29T23:59:60.5+05:30' })).toBe('accepted');
  });

  it('requires source to be a URI', () => {
    expect(reject({ ...base, source: 'not a uri' })).toContain(
      'AEP-0001 §5.1 #6: source must match format "uri"',
    );
  });

  it('requires attention lifecycle events to name their request in subject (AEP-0002 §7.1)', () => {
    const answered = { ...base, type: 'attention.answered', data: { answer: { option: 'allow' } } };
    expect(reject(answered)).toBe(
      'AEP-0002 §7.1: attention.answered must set subject to the id of its attention.requested',
    );
    expect(reject({ ...answered, subject: 'R1' })).toBe('accepted');
  });

  it('refuses a citation populating more than one offset variant', () => {
    const citation = {
      source: { id: 'doc-1' },
      offset: { char: { start: 0, end: 4 }, page: { page: 2 } },
    };
    const event = { ...base, type: 'resource.citation.recorded', data: { citations: [citation] } };
    expect(reject(event)).toContain(
      'AEP-0002 §5.2 citation: data/citations/0/offset populates char and page',
    );
  });

  it('validates the payload of registered types only: vendor and reserved types carry any object', () => {
    expect(reject({ ...base, type: 'tool.completed', data: { status: 'success' } })).toContain(
      "must have required property 'tool'",
    );
    expect(reject({ ...base, type: 'x.acme.tool.ran', data: { anything: [1, 2] } })).toBe(
      'accepted',
    );
    expect(reject({ ...base, type: 'message.user.submitted', data: { text: 'hi' } })).toBe(
      'accepted',
    );
  });

  it('treats vendor control verbs as foreign-emitter commands that omit seq', () => {
    const { seq: _seq, ...noSeq } = base;
    expect(reject({ ...noSeq, type: 'x.acme.control.restart' })).toBe('accepted');
    expect(reject({ ...base, type: 'x.acme.control.restart' })).toContain(
      'x.acme.control.restart must omit seq',
    );
  });

  it('rejects a payload field gated above the declared capture (AEP-0001 §8.2(a))', () => {
    const completed = {
      ...base,
      type: 'tool.completed',
      data: { tool: { name: 'Bash' }, result: 'verbatim output' },
    };
    expect(reject(completed)).toBe(
      "AEP-0001 §8.2(a) / AEP-0002 §5.1: data/result is gated full, above the event's capture metadata",
    );
    expect(reject({ ...completed, capture: 'redacted' })).toContain('data/result is gated full');
    expect(reject({ ...completed, capture: 'full' })).toBe('accepted');
    const nested = {
      ...base,
      type: 'tool.failed',
      data: { tool: { name: 'Bash' }, error: { type: 'E', message: 'text' } },
    };
    expect(reject(nested)).toContain('data/error/message is gated redacted');
    expect(reject({ ...base, capture: 'none', data: { message: 'x' } })).toContain(
      'capture none carries no payload content',
    );
    expect(reject({ ...base, capture: 'none', data: {} })).toBe('accepted');
  });

  it('parseEventJson reports malformed JSON as such', () => {
    const result = parseEventJson('{"aep": "0.1",');
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toMatch(/^malformed JSON: /);
  });

  it('rejects a __proto__ key rather than letting it reach the prototype', () => {
    const result = parseEventJson(JSON.stringify(base).replace('{', '{"__proto__":{"x":1},'));
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.message).toContain('"__proto__" must match [a-z0-9]{1,20}');
  });
});
