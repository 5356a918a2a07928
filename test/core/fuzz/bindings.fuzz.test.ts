/**
 * Property-based fuzzing of every binding (fast-check): random structure, nesting depth, sizes and
 * encodings over WS frames, `POST /events` (single and NDJSON), `GET /stream` and the hook route.
 * After every sample the daemon (in this process) is alive, `/healthz` answers, every HTTP answer
 * is a clear 2xx/4xx (never a 5xx), and the WS connections are still open: AEP keeps a connection
 * on every in-band refusal (AEP-0003 §6.5). The one close RFC 6455 requires, a text frame that is
 * not UTF-8 (§8.1), is checked to close only its own connection.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { http, makeEvent, startTestDaemon, WsClient, type TestDaemon } from '../relay/harness';

let d: TestDaemon;
let emitter: WsClient;
let consumer: WsClient;

beforeAll(async () => {
  d = await startTestDaemon({ baseFeatures: undefined });
  emitter = await WsClient.hello(d.url, d.tokens.hook, {
    role: 'emitter',
    capabilities: { control: { accepts: ['control.pause'] } },
  });
  consumer = await WsClient.hello(d.url, d.tokens.operator, { role: 'both' });
});
afterAll(async () => {
  emitter.close();
  consumer.close();
  await d.stop();
});

/** A JSON text nested `depth` levels (arrays or objects), built as text: no recursion anywhere. */
const deepText = fc
  .record({ depth: fc.integer({ min: 1, max: 20_000 }), objects: fc.boolean() })
  .map(({ depth, objects }) =>
    objects
      ? '{"a":'.repeat(depth) + '1' + '}'.repeat(depth)
      : '['.repeat(depth) + ']'.repeat(depth),
  );
/** A long string value (sizes up to 300 K characters, with control characters at times). */
const bigString = fc
  .record({
    n: fc.integer({ min: 0, max: 300_000 }),
    c: fc.constantFrom('x', '\n', '\u0000', 'é', '\r\n', '"'),
  })
  .map(({ n, c }) => JSON.stringify(c.repeat(Math.max(1, Math.floor(n / c.length)))));
/** Any JSON value of random structure. */
const anyJson = fc.jsonValue({ maxDepth: 8 }).map((v) => JSON.stringify(v) ?? 'null');
const value = fc.oneof(deepText, bigString, anyJson);

const eventKeys = [
  'aep',
  'id',
  'type',
  'time',
  'source',
  'agent',
  'session',
  'run',
  'seq',
  'epoch',
  'subject',
  'cause',
  'data',
  'capture',
  'ext',
];
const splice = (frame: Record<string, unknown>, key: string, text: string): string =>
  JSON.stringify({ ...frame, [key]: '__V__' }).replace('"__V__"', () => text);

/** A WS frame (or HTTP body) with one member replaced by a random value. */
const frameText = fc.oneof(
  fc
    .tuple(fc.constantFrom(...eventKeys), value)
    .map(([k, v]) => splice({ ...makeEvent({ session: 'fz', source: 'aep://fuzz' }) }, k, v)),
  value.map((v) => splice({ type: 'ping' }, 't', v)),
  fc
    .tuple(fc.constantFrom('filter', 'from', 'capture', 'id'), value)
    .map(([k, v]) => splice({ type: 'subscribe', id: 'fz' }, k, v)),
  value.map((v) => splice({ type: 'roster' }, 'id', v)),
  value.map((v) => splice({ type: 'unsubscribe' }, 'id', v)),
  value,
  fc.string({ maxLength: 200 }),
);

const post = (path: string, body: string | Buffer, type: string, token: string) =>
  http(d.url, {
    method: 'POST',
    path,
    headers: { Authorization: `Bearer ${token}`, 'AEP-Version': '0.1', 'Content-Type': type },
    body,
  });

async function invariants(statuses: number[]): Promise<void> {
  for (const s of statuses) expect(s).toBeLessThan(500);
  const health = await http(d.url, { path: '/healthz' });
  expect(health.status).toBe(200);
  await emitter.sync();
  await consumer.sync();
  expect([emitter.closed, consumer.closed]).toEqual([false, false]);
}

describe('fuzzing the bindings', () => {
  it('WS frames from an emitter and a consumer never close the connection or the daemon', async () => {
    await fc.assert(
      fc.asyncProperty(frameText, frameText, async (a, b) => {
        emitter.send(a);
        consumer.send(b);
        // The operator's next roster is where a bad declaration used to crash.
        consumer.send({ type: 'roster', id: 'after' });
        await invariants([]);
      }),
      { numRuns: 120, seed: 8_2026 },
    );
  });

  it('POST /events (single and NDJSON), GET /stream and the hook route answer 2xx/4xx and keep serving', async () => {
    await fc.assert(
      fc.asyncProperty(frameText, frameText, async (a, b) => {
        const statuses = [
          (await post('/events', a, 'application/json', d.tokens.hook)).status,
          (
            await post(
              '/events',
              `${JSON.stringify(makeEvent({ session: 'nd', source: 'aep://fuzz-nd' }))}\n${b}\n`,
              'application/x-ndjson',
              d.tokens.hook,
            )
          ).status,
          (
            await post(
              '/hooks/claude-code',
              splice(
                { hook_event_name: 'PostToolUse', session_id: 'fz', tool_name: 'Bash' },
                'tool_response',
                a.length < 20_000 ? a : '1',
              ),
              'application/json',
              d.tokens.hook,
            )
          ).status,
          (
            await http(d.url, {
              path: `/stream?live=0&filter=${encodeURIComponent(b.slice(0, 4_000))}`,
              headers: { Authorization: `Bearer ${d.tokens.operator}` },
            })
          ).status,
        ];
        await invariants(statuses);
      }),
      { numRuns: 60, seed: 8_2027 },
    );
  });

  it('random bytes: binary frames are refused in band, bodies get a 4xx, non-UTF-8 text closes only its own socket', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uint8Array({ minLength: 1, maxLength: 4_096 }), async (bytes) => {
        const buffer = Buffer.from(bytes);
        emitter.ws.send(buffer, { binary: true });
        const statuses = [
          (await post('/events', buffer, 'application/json', d.tokens.hook)).status,
          (await post('/events', buffer, 'application/x-ndjson', d.tokens.hook)).status,
          (await post('/hooks/codex', buffer, 'application/json', d.tokens.hook)).status,
        ];
        const valid = new TextDecoder('utf-8', { fatal: true });
        let utf8 = true;
        try {
          valid.decode(buffer);
        } catch {
          utf8 = false;
        }
        if (!utf8) {
          const own = await WsClient.hello(d.url, d.tokens.hook);
          own.ws.send(buffer, { binary: false });
          await own.untilClosed();
          expect(own.closeCode).toBe(1007);
        }
        await invariants(statuses);
      }),
      { numRuns: 60, seed: 8_2028 },
    );
  });
});
