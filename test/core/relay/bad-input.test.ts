import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, makeEvent, SseClient, startTestDaemon, WsClient, type TestDaemon } from './harness';

let d: TestDaemon;
beforeAll(async () => {
  d = await startTestDaemon({
    relayLimits: { maxBodyBytes: 256 * 1024, maxFrameBytes: 64 * 1024 },
  });
});
afterAll(async () => {
  await d.stop();
});

const good = (): Record<string, unknown> => ({ ...makeEvent() });
const post = (body: string | Buffer, contentType = 'application/json') =>
  http(d.url, {
    method: 'POST',
    path: '/events',
    headers: {
      Authorization: `Bearer ${d.tokens.hook}`,
      'AEP-Version': '0.1',
      'Content-Type': contentType,
    },
    body,
  });

async function stillHealthy(): Promise<void> {
  expect((await http(d.url, { path: '/healthz' })).json).toEqual({ ok: true });
}

describe('bad input over HTTP ingest', () => {
  const bodies: [string, string | Buffer][] = [
    ['empty body', ''],
    ['null', 'null'],
    ['a JSON array', '[1,2,3]'],
    ['a string', '"event"'],
    ['a number', '42'],
    ['truncated JSON', '{"aep":"0.1","id":'],
    ['deeply nested arrays', '['.repeat(100_000) + ']'.repeat(100_000)],
    ['binary garbage', Buffer.from([0xff, 0xfe, 0x00, 0x01, 0x80, 0x81])],
    ['only required keys missing', '{"aep":"0.1"}'],
    ['id as a number', JSON.stringify({ ...good(), id: 5 })],
    ['seq as a string', JSON.stringify({ ...good(), seq: '1' })],
    ['negative epoch', JSON.stringify({ ...good(), epoch: -3 })],
    ['time not a date', JSON.stringify({ ...good(), time: 'noon' })],
    ['session as an object', JSON.stringify({ ...good(), session: { a: 1 } })],
    ['data as an array', JSON.stringify({ ...good(), data: [1] })],
    ['unknown severity', JSON.stringify({ ...good(), severity: 'loud' })],
    ['null attribute', JSON.stringify({ ...good(), run: null })],
    ['proto pollution key', `{"__proto__":{"polluted":true},${JSON.stringify(good()).slice(1)}`],
    ['type without a dot', JSON.stringify({ ...good(), type: 'hello' })],
  ];
  for (const [name, body] of bodies) {
    it(`answers ${name} with a 4xx JSON error and keeps serving`, async () => {
      const reply = await post(body);
      expect(reply.status).toBeGreaterThanOrEqual(400);
      expect(reply.status).toBeLessThan(500);
      expect(typeof (reply.json as { error: unknown }).error).toBe('string');
      await stillHealthy();
    });
  }

  it('answers malformed NDJSON lines with the failing line and keeps serving', async () => {
    const lines = [JSON.stringify(good()), '[]', JSON.stringify(good())];
    const reply = await post(lines.join('\n'), 'application/x-ndjson');
    expect(reply.status).toBe(400);
    expect(reply.json).toMatchObject({ error: 'invalid-event', index: 1 });
    expect((await post('\n\n\n', 'application/x-ndjson')).status).toBe(400);
    await stillHealthy();
  });

  it('answers a body far over the limit with 413 and keeps serving', async () => {
    const reply = await post('x'.repeat(2 * 1024 * 1024));
    expect(reply.status).toBe(413);
    await stillHealthy();
  });

  it('answers a request that is not HTTP with 400 and keeps serving', async () => {
    const { connect } = await import('node:net');
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(d.port, '127.0.0.1', () => socket.write('NOT HTTP AT ALL\r\n\r\n'));
      let text = '';
      socket.on('data', (c) => (text += c.toString()));
      socket.on('close', () => resolve(text));
      socket.on('error', () => resolve(text));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400/);
    await stillHealthy();
  });
});

describe('bad input over SSE', () => {
  const paths = [
    '/stream?filter=null',
    '/stream?filter=%22string%22',
    '/stream?filter=%5B%5D',
    '/stream?filter=%7B%22severity%22%3A%7B%22gte%22%3A%22loud%22%7D%7D',
    '/stream?from=%5Bnull%5D',
    '/stream?from=%5B%5B%5D%5D',
    '/stream?from=%00',
    '/stream?from=',
    '/stream?capture=',
  ];
  for (const path of paths) {
    it(`answers ${path} with 400 JSON or streams correctly, and keeps serving`, async () => {
      const sse = await SseClient.open(d.url, path, {
        Authorization: `Bearer ${d.tokens.operator}`,
      });
      if (sse.status === 200) {
        sse.close();
      } else {
        await sse.untilEnded();
        expect(sse.status).toBe(400);
        expect(typeof JSON.parse(sse.body).error).toBe('string');
      }
      await stillHealthy();
    });
  }
});

describe('bad input over WS', () => {
  it('answers every malformed frame in-band and keeps the connection', async () => {
    const c = await WsClient.hello(d.url, d.tokens.operator, {
      role: 'both',
      identity: { agent: 'tester' },
    });
    const frames: [string, string][] = [
      ['{', 'invalid-frame'],
      ['[]', 'invalid-frame'],
      ['null', 'invalid-frame'],
      ['"subscribe"', 'invalid-frame'],
      ['{"type":5}', 'invalid-frame'],
      ['{"type":"subscribe"}', 'invalid-filter'],
      ['{"type":"subscribe","id":"a","filter":"everything"}', 'invalid-filter'],
      ['{"type":"subscribe","id":"b","from":{}}', 'invalid-filter'],
      ['{"type":"subscribe","id":"c","from":[[]]}', 'invalid-filter'],
      [
        '{"type":"subscribe","id":"d","from":[{"session":"s","epoch":0,"seq":1.5}]}',
        'invalid-filter',
      ],
      ['{"type":"unsubscribe"}', 'invalid-frame'],
      ['{"type":"roster"}', 'invalid-frame'],
      [JSON.stringify({ ...good(), seq: 'x' }), 'invalid-event'],
      [JSON.stringify({ ...good(), type: 'not.A.type!' }), 'invalid-event'],
    ];
    for (const [text, code] of frames) {
      const before = c.frames.length;
      c.send(text);
      expect(await c.next((f) => f.type === 'error', before), text).toMatchObject({ code });
    }
    c.ws.send(Buffer.alloc(10));
    await c.next((f) => f.code === 'binary-unsupported');
    c.send({ type: 'hello', versions: ['0.1'] }); // a second hello is ignored
    await c.sync();
    expect(c.closed).toBe(false);
    c.close();
  });

  it('closes a connection that sends a frame over the size limit, and keeps serving others', async () => {
    const c = await WsClient.hello(d.url, d.tokens.operator);
    c.send('x'.repeat(128 * 1024));
    await c.untilClosed();
    expect(c.closeCode).toBe(1009);
    const other = await WsClient.hello(d.url, d.tokens.operator);
    await other.sync();
    other.close();
    await stillHealthy();
  });
});
