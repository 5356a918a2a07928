import { describe, expect, it } from 'vitest';
import { redact, redactValue, type RedactOptions } from '../../../main/core/aep';
import { fixture } from './corpus';

interface RedactionCase {
  readonly name: string;
  readonly input: unknown;
  readonly opts?: RedactOptions;
  readonly must_contain?: readonly string[];
  readonly must_not_contain?: readonly string[];
}
const corpus = fixture<{ text_cases: RedactionCase[]; value_cases: RedactionCase[] }>(
  'redaction/cases.json',
);

const check = (out: string, c: RedactionCase): void => {
  for (const s of c.must_contain ?? []) expect(out).toContain(s);
  for (const s of c.must_not_contain ?? []) expect(out).not.toContain(s);
};

describe('redaction corpus (redaction/cases.json)', () => {
  it.each(corpus.text_cases.map((c) => [c.name, c] as const))('text: %s', (_name, c) => {
    check(redact(c.input as string, c.opts), c);
  });

  it.each(corpus.value_cases.map((c) => [c.name, c] as const))('value: %s', (_name, c) => {
    check(JSON.stringify(redactValue(c.input, c.opts)), c);
  });
});

describe('redact beyond the corpus', () => {
  it('applies the pipeline in order: secrets, configured values, home paths, PII', () => {
    const out = redact('token=abc12345 key s3cr3tvalue at /home/op/work mail me@example.org', {
      secretValues: ['s3cr3tvalue'],
      home: '/home/op',
    });
    expect(out).toBe('token=[REDACTED:secret] key [REDACTED:secret] at ~/work mail [REDACTED:pii]');
  });

  it('replaces the configured home only at a path boundary', () => {
    expect(redact('/srv/app and /srv/application', { home: '/srv/app' })).toBe(
      '~ and /srv/application',
    );
  });

  it('keeps JSON quoting intact around a redacted quoted value', () => {
    expect(redact('{"password": "correct horse"}')).toBe('{"password": "[REDACTED:secret]"}');
  });

  it('leaves timestamps, ids and token counts alone', () => {
    const text =
      'at 2026-07-03T10:15:04.221Z call t_91 used input_tokens=142 trace 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    expect(redact(text)).toBe(text);
  });

  it('ignores empty configured secret values instead of redacting everywhere', () => {
    expect(redact('plain text', { secretValues: [''] })).toBe('plain text');
  });

  it('redacts the values of credential-named keys, keeps keys and structural scalars', () => {
    expect(redactValue({ auth_token: 12345, password: null, secret_ok: true, count: 3 })).toEqual({
      auth_token: '[REDACTED:secret]',
      password: null,
      secret_ok: true,
      count: 3,
    });
  });
});

describe('redact on large unbroken input', () => {
  it('handles megabyte runs of token-like characters and returns them unchanged', () => {
    for (const text of [
      'a.'.repeat(500_000),
      'QUJD'.repeat(250_000),
      'x-'.repeat(500_000),
      'tokentoken'.repeat(100_000),
    ]) {
      expect(redact(text)).toBe(text);
    }
  });
});
