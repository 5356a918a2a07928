import { afterEach, describe, expect, it } from 'vitest';
import {
  configureLogging,
  createLogger,
  registerSecret,
  scrub,
  stderrSink,
  type LogRecord,
} from '../../main/core/logger';

afterEach(() => configureLogging({ level: 'warn', sink: stderrSink }));

describe('logger', () => {
  it('emits only at or above the configured level', () => {
    const records: LogRecord[] = [];
    configureLogging({ level: 'info', sink: (r) => records.push(r) });
    const log = createLogger('scope');
    log.debug('hidden');
    log.info('shown', { n: 1 });
    log.error('also shown');
    expect(records.map((r) => [r.level, r.scope, r.message])).toEqual([
      ['info', 'scope', 'shown'],
      ['error', 'scope', 'also shown'],
    ]);
  });

  it('never writes tokens: access_token query values, bearer values, token-named fields and registered secrets', () => {
    const records: LogRecord[] = [];
    configureLogging({ level: 'debug', sink: (r) => records.push(r) });
    registerSecret('s3cr3t-operator-token-value');
    createLogger('x').info('GET /stream?filter=%7B%7D&access_token=abc123 with Bearer xyz789', {
      header: 'Bearer qwerty',
      token: 'plain',
      nested: { url: '/socket?access_token=zzz', note: 'leaked s3cr3t-operator-token-value here' },
    });
    const text = JSON.stringify(records);
    for (const secret of [
      'abc123',
      'xyz789',
      'qwerty',
      'plain',
      'zzz',
      's3cr3t-operator-token-value',
    ])
      expect(text).not.toContain(secret);
    expect(scrub('/stream?access_token=abc&live=0')).toBe('/stream?access_token=[redacted]&live=0');
  });
});
