/**
 * The listener's direct lane (`server/direct-lane.ts`): which requests it answers itself, that it
 * hands every other connection to node:http with no byte lost (mid-connection, pipelined, split
 * at any byte), and that a route answered both ways looks the same to its client.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { parseHead } from '../../../main/core/server/direct-lane';
import { startHttpServer, type HttpServerHandle, type RefusalRecord } from '../../../main/core/server/http-server';
import { RouteTable } from '../../../main/core/server/route-table';
import { TokenStore } from '../../../main/core/server/tokens';
import { sendJson } from '../../../main/core/server/http-util';

const dirs: string[] = [];
const servers: HttpServerHandle[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A listener with one route answered both ways (the body says which), and a plain API route. */
async function start(directLane = true, tokenDir?: string, limit = 1024): Promise<{ dir: string; url: string; port: number; tokens: TokenStore; refusals: RefusalRecord[]; seen: string[]; hungUp: string[]; faults: string[] }> {
  const dir = tokenDir ?? mkdtempSync(join(tmpdir(), 'aep-lane-'));
  if (tokenDir === undefined) dirs.push(dir);
  const tokens = TokenStore.open(dir);
  const routes = new RouteTable();
  const seen: string[] = [];
  const hungUp: string[] = [];
  const faults: string[] = [];
  routes.register({
    method: 'POST',
    path: '/hooks/:vendor',
    auth: 'hook',
    handler: (req, res, ctx) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        seen.push(body);
        sendJson(res, 200, { via: 'node', vendor: ctx.params.vendor, body, principal: ctx.principal, query: ctx.url.searchParams.get('q') });
      });
    },
    direct: {
      limit,
      handler: async (request, reply, ctx) => {
        await new Promise((r) => setImmediate(r));
        const body = request.body.toString('utf8');
        seen.push(body);
        // `hold`: answers nothing until the client hangs up; `silent`: ends without a reply.
        if (ctx.params.vendor === 'hold') return new Promise<void>((r) => reply.onHangUp(() => { hungUp.push(body); r(); }));
        if (ctx.params.vendor === 'silent') return;
        reply.json(200, { via: 'lane', vendor: ctx.params.vendor, body, principal: ctx.principal, query: ctx.url.searchParams.get('q') });
      },
    },
  });
  routes.register({ method: 'GET', path: '/api/ping', auth: 'operator', handler: (_req, res) => sendJson(res, 200, { via: 'node', pong: true }) });
  const refusals: RefusalRecord[] = [];
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    routes,
    tokens,
    tokenlessWatch: () => false,
    onRefusal: (r) => refusals.push(r),
    onFault: (request, error) => faults.push(`${request}: ${(error as Error).message}`),
    directLane,
  });
  servers.push(server);
  return { dir, url: server.url, port: server.port, tokens, refusals, seen, hungUp, faults };
}

/** A parsed HTTP/1.1 response. */
interface Response {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Splits the responses out of the bytes a connection received (Content-Length bodies). */
function responses(bytes: Buffer): Response[] {
  const out: Response[] = [];
  let at = 0;
  while (at < bytes.length) {
    const end = bytes.indexOf('\r\n\r\n', at);
    if (end === -1) break;
    const lines = bytes.toString('latin1', at, end).split('\r\n');
    const headers: Record<string, string> = {};
    for (const line of lines.slice(1)) {
      const colon = line.indexOf(':');
      headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
    }
    const status = Number(lines[0].split(' ')[1]);
    if (headers['transfer-encoding'] === 'chunked') {
      let next = end + 4;
      let body = '';
      for (;;) {
        const eol = bytes.indexOf('\r\n', next);
        if (eol === -1) return out;
        const size = parseInt(bytes.toString('latin1', next, eol), 16);
        if (bytes.length < eol + 2 + size + 2) return out;
        body += bytes.toString('utf8', eol + 2, eol + 2 + size);
        next = eol + 2 + size + 2;
        if (size === 0) break;
      }
      out.push({ status, headers, body });
      at = next;
      continue;
    }
    const length = Number(headers['content-length'] ?? 0);
    if (bytes.length < end + 4 + length) break;
    // An interim reply (100 Continue) is no answer to its request.
    if (status >= 200 || Number.isNaN(status)) out.push({ status, headers, body: bytes.toString('utf8', end + 4, end + 4 + length) });
    at = end + 4 + length;
  }
  return out;
}

/**
 * Writes `parts` to one connection, a part per write (after the previous reached the socket),
 * and resolves with the responses once `expected` have arrived or the server closed.
 */
function exchange(port: number, parts: (string | Buffer)[], expected: number): Promise<{ responses: Response[]; closed: boolean }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    const got: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean): void => {
      if (done) return;
      done = true;
      clearTimeout(stuck);
      socket.destroy();
      resolve({ responses: responses(Buffer.concat(got)), closed });
    };
    // A guard only: every exchange here ends by its replies or a close long before this.
    const stuck = setTimeout(() => finish(false), 5_000);
    socket.on('data', (c: Buffer) => {
      got.push(c);
      if (responses(Buffer.concat(got)).length >= expected) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', reject);
    socket.on('connect', async () => {
      for (const part of parts) await new Promise<void>((r) => socket.write(part, () => setImmediate(r)));
    });
  });
}

const hook = (token: string, body: string, extra = '', target = '/hooks/claude-code'): string =>
  `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
const ping = (token: string): string => `GET /api/ping HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`;
const chunked = (token: string, body: string): string =>
  `POST /hooks/claude-code HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nTransfer-Encoding: chunked\r\n\r\n${Buffer.byteLength(body).toString(16)}\r\n${body}\r\n0\r\n\r\n`;

describe('the direct lane: which request heads it takes', () => {
  const head = (text: string): ReturnType<typeof parseHead> => {
    const bytes = Buffer.from(`${text}\r\n\r\n`, 'latin1');
    return parseHead(bytes, bytes.length - 4);
  };

  it('takes a simple POST with its kept headers, length and connection', () => {
    expect(head('POST /hooks/codex?instruct=1 HTTP/1.1\r\nHost: 127.0.0.1:4000\r\nauthorization:  Bearer abc \r\nContent-Length: 12\r\nConnection: close\r\nUser-Agent: x')).toEqual({
      target: '/hooks/codex?instruct=1',
      headers: { host: '127.0.0.1:4000', authorization: 'Bearer abc', 'content-type': undefined },
      length: 12,
      close: true,
      bodyStart: expect.any(Number),
    });
    expect(head('POST /hooks/a HTTP/1.1\r\nhost: localhost\r\ncontent-length: 0\r\nconnection: Keep-Alive')).toMatchObject({ length: 0, close: false });
  });

  it.each([
    ['another method', 'GET /hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: 1'],
    ['HTTP/1.0', 'POST /hooks/a HTTP/1.0\r\nHost: h\r\nContent-Length: 1'],
    ['a tab in the target', 'POST /hooks/a\tb HTTP/1.1\r\nHost: h\r\nContent-Length: 1'],
    ['a bare newline in the request line', 'POST /hooks/a\n HTTP/1.1\r\nHost: h\r\nContent-Length: 1'],
    ['an absolute-form target', 'POST http://h/hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: 1'],
    ['no Content-Length', 'POST /hooks/a HTTP/1.1\r\nHost: h'],
    ['two Content-Lengths', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nContent-Length: 1'],
    ['a signed Content-Length', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: +1'],
    ['a chunked body', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nTransfer-Encoding: chunked'],
    ['Expect', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nExpect: 100-continue'],
    ['an upgrade', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nConnection: Upgrade\r\nUpgrade: websocket'],
    ['a Connection list', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nConnection: keep-alive, TE'],
    ['an Origin', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nContent-Length: 1\r\nOrigin: http://evil.example'],
    ['no Host', 'POST /hooks/a HTTP/1.1\r\nContent-Length: 1'],
    ['two Hosts', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nHost: h\r\nContent-Length: 1'],
    ['two Authorizations', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nAuthorization: a\r\nAuthorization: b\r\nContent-Length: 1'],
    ['a folded line', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nX-A: 1\r\n  2\r\nContent-Length: 1'],
    ['a bad field name', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nX A: 1\r\nContent-Length: 1'],
    ['a control character in a value', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nX-A: 1\x002\r\nContent-Length: 1'],
    ['a line without a colon', 'POST /hooks/a HTTP/1.1\r\nHost: h\r\nnonsense\r\nContent-Length: 1'],
  ])('leaves %s to node:http', (_what, text) => {
    expect(head(text)).toBeNull();
  });
});

describe('the direct lane on a listener', () => {
  it('answers a simple request itself, and a chunked one through node:http, with the same headers', async () => {
    const s = await start();
    const token = s.tokens.get('hook');
    const lane = (await exchange(s.port, [hook(token, '{"a":1}', '', '/hooks/claude-code?q=7')], 1)).responses[0];
    const node = (await exchange(s.port, [chunked(token, '{"a":1}')], 1)).responses[0];
    expect(lane.status).toBe(200);
    expect(JSON.parse(lane.body)).toEqual({ via: 'lane', vendor: 'claude-code', body: '{"a":1}', principal: 'hook', query: '7' });
    expect(JSON.parse(node.body)).toEqual({ via: 'node', vendor: 'claude-code', body: '{"a":1}', principal: 'hook', query: null });
    expect(Object.keys(lane.headers).sort()).toEqual(Object.keys(node.headers).sort());
    for (const name of ['content-type', 'cache-control', 'x-content-type-options', 'connection', 'keep-alive'])
      expect(lane.headers[name]).toBe(node.headers[name]);
  });

  it('leaves every request to node:http when the lane is off', async () => {
    const s = await start(false);
    const got = await exchange(s.port, [hook(s.tokens.get('hook'), '{}')], 1);
    expect(JSON.parse(got.responses[0].body)).toMatchObject({ via: 'node' });
  });

  it('hands a kept-alive connection to node:http at its first request that is not simple, with every byte', async () => {
    const s = await start();
    const token = s.tokens.get('hook');
    const operator = s.tokens.get('operator');
    const got = await exchange(s.port, [hook(token, '"one"'), hook(token, '"two"'), ping(operator), hook(token, '"three"')], 4);
    expect(got.responses.map((r) => [r.status, JSON.parse(r.body).via])).toEqual([
      [200, 'lane'],
      [200, 'lane'],
      [200, 'node'],
      [200, 'node'],
    ]);
    expect(s.seen).toEqual(['"one"', '"two"', '"three"']);
  });

  it('answers pipelined requests in order, whatever the byte boundaries of the writes', async () => {
    const s = await start();
    const token = s.tokens.get('hook');
    const operator = s.tokens.get('operator');
    const stream = Buffer.from(hook(token, '"a"') + hook(token, '"b"') + hook(token, '"c"', 'Connection: keep-alive\r\n') + ping(operator) + chunked(token, '"d"'));
    await fc.assert(
      fc.asyncProperty(fc.uniqueArray(fc.integer({ min: 1, max: stream.length - 1 }), { maxLength: 6 }), async (cuts) => {
        const at = [0, ...cuts.sort((a, b) => a - b), stream.length];
        const parts = at.slice(1).map((end, i) => stream.subarray(at[i], end));
        s.seen.length = 0;
        const got = await exchange(s.port, parts, 5);
        expect(got.responses.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
        expect(got.responses.map((r) => JSON.parse(r.body).body ?? 'pong')).toEqual(['"a"', '"b"', '"c"', 'pong', '"d"']);
        expect(s.seen).toEqual(['"a"', '"b"', '"c"', '"d"']);
      }),
      { numRuns: 25 },
    );
  });

  it('closes the connection after a reply to Connection: close, and says so', async () => {
    const s = await start();
    const got = await exchange(s.port, [hook(s.tokens.get('hook'), '{}', 'Connection: close\r\n')], 2);
    expect(got.responses).toHaveLength(1);
    expect(got.responses[0].headers.connection).toBe('close');
    expect(JSON.parse(got.responses[0].body).via).toBe('lane');
    expect(got.closed).toBe(true);
  });

  it('leaves refusals to node:http, which answers and records them', async () => {
    const s = await start();
    const token = s.tokens.get('hook');
    const wrong = await exchange(s.port, [hook('not-the-token', '{}')], 1);
    expect(wrong.responses[0].status).toBe(401);
    const host = await exchange(s.port, [hook(token, '{}').replace('Host: 127.0.0.1', 'Host: evil.example')], 1);
    expect(host.responses[0].status).toBe(403);
    const origin = await exchange(s.port, [hook(token, '{}', 'Origin: http://evil.example\r\n')], 1);
    expect(origin.responses[0].status).toBe(403);
    expect(s.refusals.map((r) => r.code)).toEqual(['unauthorized', 'bad-host', 'bad-origin']);
    const unknown = await exchange(s.port, [hook(token, '{}', '', '/hooks/a/b')], 1);
    expect(unknown.responses[0].status).toBe(404);
    expect(s.seen).toEqual([]);
  });

  it('leaves a body over the route limit to node:http, and waits for a body that comes later', async () => {
    const s = await start();
    const token = s.tokens.get('hook');
    const big = JSON.stringify('x'.repeat(2_000));
    const over = await exchange(s.port, [hook(token, big)], 1);
    expect(JSON.parse(over.responses[0].body).via).toBe('node');
    const request = hook(token, '{"late":true}');
    const split = request.indexOf('\r\n\r\n') + 4;
    const later = await exchange(s.port, [request.slice(0, split), request.slice(split)], 1);
    expect(JSON.parse(later.responses[0].body)).toMatchObject({ via: 'lane', body: '{"late":true}' });
  });

  it('takes a large body that arrives in many writes, then the next request on the connection', async () => {
    const s = await start(true, undefined, 4 << 20);
    const token = s.tokens.get('hook');
    const big = JSON.stringify({ text: 'z'.repeat(3 << 20) });
    const bytes = Buffer.from(hook(token, big) + hook(token, '"after"'));
    const parts: Buffer[] = [];
    for (let at = 0; at < bytes.length; at += 64 * 1024) parts.push(bytes.subarray(at, at + 64 * 1024));
    const got = await exchange(s.port, parts, 2);
    expect(got.responses.map((r) => JSON.parse(r.body).via)).toEqual(['lane', 'lane']);
    expect(JSON.parse(JSON.parse(got.responses[0].body).body).text).toHaveLength(3 << 20);
    expect(s.seen.map((b) => b.length)).toEqual([big.length, '"after"'.length]);
  });

  it('tells a handler the client hung up, which is no fault; a handler that ends without a reply is one', async () => {
    const s = await start();
    const token = s.tokens.get('hook');
    const socket = connect(s.port, '127.0.0.1');
    socket.on('error', () => undefined);
    await new Promise<void>((r) => socket.on('connect', () => r()));
    socket.write(hook(token, '"held"', '', '/hooks/hold'));
    while (s.seen.length === 0) await new Promise((r) => setTimeout(r, 5));
    socket.destroy();
    while (s.hungUp.length === 0) await new Promise((r) => setTimeout(r, 5));
    await new Promise((r) => setTimeout(r, 20));
    expect(s.hungUp).toEqual(['"held"']);
    expect(s.faults).toEqual([]);
    const silent = await exchange(s.port, [hook(token, '{}', '', '/hooks/silent')], 1);
    expect(silent.responses[0].status).toBe(500);
    expect(s.faults).toEqual(['POST /hooks/silent: the handler ended without a reply']);
  });

  it('closes idle kept-alive connections when the listener closes', async () => {
    const s = await start();
    const socket = connect(s.port, '127.0.0.1');
    const closed = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => undefined);
    await new Promise<void>((r) => socket.on('connect', () => r()));
    socket.write(hook(s.tokens.get('hook'), '{}'));
    await new Promise<void>((r) => socket.once('data', () => r()));
    await servers.splice(0)[0].close();
    await closed;
  });

  it('answers any request as node:http alone does (status, body, connection), pipelined or alone', async () => {
    const lane = await start(true);
    // The same token files: a request means the same to both listeners.
    const node = await start(false, lane.dir);
    const tokens = { hook: lane.tokens.get('hook'), operator: lane.tokens.get('operator') };
    expect(node.tokens.snapshot()).toEqual(tokens);
    type Request = { method: string; target: string; version: string; host: readonly string[]; auth: readonly string[]; headers: readonly string[]; body: string; framing: string };
    // Weighted toward hook calls the lane takes, so that each run has some of them.
    const bearers = [
      [`Authorization: Bearer ${tokens.hook}`],
      [`Authorization: Bearer ${tokens.hook}`],
      [`Authorization: Bearer ${tokens.hook}`],
      [`Authorization: Bearer ${tokens.operator}`],
      ['Authorization: Bearer nope'],
    ];
    const common = {
      target: fc.constantFrom(
        '/hooks/claude-code',
        '/hooks/claude-code',
        '/hooks/claude-code',
        '/hooks/codex?q=1',
        '/hooks/a%20b',
        '/hooks/',
        '/hooks/a/b',
        '/hooks/../hooks/x',
        '/api/ping',
        '//hooks/x',
        '/hooks/x#f',
      ),
      auth: fc.constantFrom(...bearers, ['Authorization: Basic abc'], []),
      headers: fc.array(
        fc.constantFrom(
          'Content-Type: application/json',
          'Connection: keep-alive',
          'Connection: Upgrade',
          'Origin: http://evil.example',
          'Expect: 100-continue',
          'X-Note: a b',
          'X-Tab:\tvalue\t',
          'Accept:*/*',
        ),
        { maxLength: 4 },
      ),
      body: fc.constantFrom('{}', '{"a":[1,2]}', '"x"', '', '{"big":"' + 'y'.repeat(1_100) + '"}'),
    };
    // Requests node:http parses and keeps the connection open after: any number can be pipelined.
    const kept = fc.record({
      ...common,
      method: fc.constantFrom('POST', 'POST', 'POST', 'POST', 'GET', 'PUT'),
      version: fc.constant('HTTP/1.1'),
      host: fc.constantFrom(['Host: 127.0.0.1'], ['Host: 127.0.0.1'], ['Host: localhost:9'], ['Host: evil.example']),
      framing: fc.constantFrom('length', 'length', 'chunked'),
    });
    // A simple hook call (with other harmless fields), mostly one admission lets through: half of the
    // pipelined requests.
    const simple = fc.record({
      target: fc.constantFrom('/hooks/claude-code', '/hooks/codex?q=1'),
      auth: fc.constantFrom(...bearers, []),
      headers: fc.array(fc.constantFrom('Content-Type: application/json', 'Connection: keep-alive', 'X-Note: a b', 'X-Tab:\tvalue\t', 'Accept:*/*'), { maxLength: 3 }),
      body: fc.constantFrom('{}', '{"a":[1,2]}', '"x"', ''),
      method: fc.constant('POST'),
      version: fc.constant('HTTP/1.1'),
      host: fc.constantFrom(['Host: 127.0.0.1'], ['Host: 127.0.0.1'], ['Host: localhost:9'], ['Host: evil.example']),
      framing: fc.constant('length'),
    });
    // Anything, a request that ends the connection or that node:http cannot parse included: sent alone.
    // (Behind a pipeline, node:http's own answer to a request it cannot parse depends on how the bytes
    // reached its parser, from the socket or pushed back by the lane: its clientError reply can go out
    // before a reply still queued. No hook client pipelines, let alone malformed requests.)
    const any = fc.record({
      ...common,
      method: fc.constantFrom('POST', 'POST', 'GET', 'post'),
      version: fc.constantFrom('HTTP/1.1', 'HTTP/1.1', 'HTTP/1.0'),
      host: fc.constantFrom(['Host: 127.0.0.1'], [], ['Host: 127.0.0.1', 'Host: 127.0.0.1']),
      framing: fc.constantFrom('length', 'length', 'none', 'twice', 'chunked', 'close'),
    });
    const build = (r: Request): string => {
      const n = Buffer.byteLength(r.body);
      const framing: string[] = {
        length: [`Content-Length: ${n}`],
        close: [`Content-Length: ${n}`, 'Connection: close'],
        twice: [`Content-Length: ${n}`, `Content-Length: ${n}`],
        chunked: ['Transfer-Encoding: chunked'],
        none: [],
      }[r.framing as 'length' | 'close' | 'twice' | 'chunked' | 'none'];
      const payload = r.framing === 'chunked' ? (n === 0 ? '0\r\n\r\n' : `${n.toString(16)}\r\n${r.body}\r\n0\r\n\r\n`) : r.framing === 'none' ? '' : r.body;
      const fields = [...r.host, ...r.auth, ...r.headers, ...framing];
      return `${r.method} ${r.target} ${r.version}\r\n${fields.map((f) => `${f}\r\n`).join('')}\r\n${payload}`;
    };
    const comparable = (got: { responses: Response[] }): unknown =>
      got.responses.map((r) => {
        let parsed: unknown = r.body;
        try {
          parsed = JSON.parse(r.body);
          if (typeof parsed === 'object' && parsed !== null) delete (parsed as { via?: string }).via;
        } catch {
          // not JSON: compared as text
        }
        return [r.status, parsed, r.headers.connection];
      });
    const answered = { lane: 0, node: 0 };
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.array(fc.oneof(simple, kept), { minLength: 1, maxLength: 4 }), any.map((r) => [r])), async (requests) => {
        const bytes = requests.map(build).join('');
        const [a, b] = await Promise.all([exchange(lane.port, [bytes], requests.length), exchange(node.port, [bytes], requests.length)]);
        expect(comparable(a)).toEqual(comparable(b));
        answered.lane += a.responses.filter((r) => r.body.includes('"via":"lane"')).length;
        answered.node += a.responses.length;
      }),
      { numRuns: 200 },
    );
    // The property saw both ways: requests the lane answered, and the others.
    expect(answered.lane).toBeGreaterThan(15);
    expect(answered.node - answered.lane).toBeGreaterThan(50);
  });
});

describe('the direct lane: idle timeouts', () => {
  /** A bare listener over a lane whose connections idle out after `keepAliveMs`; `delayMs` before each reply. */
  async function bare(keepAliveMs: number, delayMs: number): Promise<{ port: number; close: () => Promise<void> }> {
    const { createServer } = await import('node:net');
    const { DirectLane } = await import('../../../main/core/server/direct-lane');
    const lane = new DirectLane({
      admit: () => ({
        limit: 1024,
        serve: async (request, reply) => {
          await new Promise((r) => setTimeout(r, delayMs));
          reply.json(200, { body: request.body.toString('utf8') });
        },
      }),
      toNode: (socket) => socket.destroy(),
      onFault: () => undefined,
      keepAliveMs,
    });
    const server = createServer((socket) => lane.accept(socket));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    return {
      port: (server.address() as { port: number }).port,
      close: () => {
        lane.destroyAll();
        return new Promise<void>((r) => server.close(() => r()));
      },
    };
  }

  it('keeps a connection whose reply takes longer than the idle timeout, and closes it once idle after the reply', async () => {
    const lane = await bare(40, 150);
    try {
      const socket = connect(lane.port, '127.0.0.1');
      const got: Buffer[] = [];
      let repliedAt = 0;
      socket.on('data', (c: Buffer) => {
        got.push(c);
        repliedAt = performance.now();
      });
      const closed = new Promise<number>((r) => socket.on('close', () => r(performance.now())));
      await new Promise<void>((r) => socket.on('connect', () => r()));
      socket.write(hook('t', '"slow"'));
      const closedAt = await closed;
      const replies = responses(Buffer.concat(got));
      expect(replies.map((r) => JSON.parse(r.body).body)).toEqual(['"slow"']);
      // Closed by the idle timeout counted from the reply, not before it.
      expect(closedAt - repliedAt).toBeGreaterThanOrEqual(30);
    } finally {
      await lane.close();
    }
  });

  it('waits for a body that stalls past the idle timeout (the body stall limit is far longer)', async () => {
    const lane = await bare(40, 0);
    try {
      const request = hook('t', '"late body"');
      const cut = request.length - 4;
      const socket = connect(lane.port, '127.0.0.1');
      const got: Buffer[] = [];
      socket.on('data', (c: Buffer) => got.push(c));
      await new Promise<void>((r) => socket.on('connect', () => r()));
      socket.write(request.slice(0, cut));
      await new Promise((r) => setTimeout(r, 150));
      expect(socket.destroyed).toBe(false);
      socket.write(request.slice(cut));
      while (responses(Buffer.concat(got)).length === 0) await new Promise((r) => setTimeout(r, 5));
      expect(JSON.parse(responses(Buffer.concat(got))[0].body).body).toBe('"late body"');
      socket.destroy();
    } finally {
      await lane.close();
    }
  });
});
