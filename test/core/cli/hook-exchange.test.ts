/**
 * The hook shim's own HTTP/1.1 exchange over a bare socket, against real servers on port 0: a
 * node:http server answering with a Content-Length body and with a chunked one, and raw sockets
 * answering with a cut-off or non-HTTP reply.
 */
import { createServer, type Server } from 'node:http';
import { createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exchange, parseReply, requestHead, type HookReply } from '../../../main/cli/hook-exchange';

let http: Server;
let base: string;
const seen: { method?: string; url?: string; auth?: string; body: string }[] = [];

beforeAll(async () => {
  http = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (c: string) => (body += c));
    req.on('end', () => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
      if (req.url === '/chunked') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"decision":');
        setTimeout(() => res.end('"block","reason":"ünïcode"}'), 20);
      } else {
        res.writeHead(req.headers.authorization === 'Bearer good' ? 200 : 401);
        res.end(JSON.stringify({ got: body.length }));
      }
    });
  });
  await new Promise<void>((r) => http.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
});
afterAll(() => new Promise<void>((r) => http.close(() => r())));

const post = (url: string, headers: Record<string, string>, body: string): Promise<HookReply | string> =>
  new Promise((resolve) => exchange(new URL(url), headers, Promise.resolve(Buffer.from(body)), () => undefined, resolve));

async function rawServer(answer: (s: Socket) => void): Promise<{ url: string; server: NetServer }> {
  const server = createNetServer((s) => s.once('data', () => answer(s)));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks/x`, server };
}

describe('hook exchange', () => {
  it('posts the body with its headers and reads a Content-Length reply', async () => {
    const body = JSON.stringify({ hook_event_name: 'Stop', text: 'ä'.repeat(3000) });
    const reply = await post(`${base}/hooks/claude-code?instruct=1`, { Authorization: 'Bearer good' }, body);
    expect(reply).toEqual({ status: 200, body: JSON.stringify({ got: body.length }) });
    expect(seen.at(-1)).toEqual({ method: 'POST', url: '/hooks/claude-code?instruct=1', auth: 'Bearer good', body });
  });

  it('reads a chunked reply sent in parts, and reports a refusal with its status', async () => {
    expect(await post(`${base}/chunked`, {}, '{}')).toEqual({ status: 200, body: '{"decision":"block","reason":"ünïcode"}' });
    expect(await post(`${base}/x`, { Authorization: 'Bearer bad' }, '{}')).toMatchObject({ status: 401 });
  });

  it('reports a refused connection by its code, and cut-off or non-HTTP replies as problems', async () => {
    const closed = await rawServer(() => undefined);
    const port = (closed.server.address() as { port: number }).port;
    await new Promise<void>((r) => closed.server.close(() => r()));
    expect(await post(`http://127.0.0.1:${port}/`, {}, '{}')).toBe('ECONNREFUSED');
    const cut = await rawServer((s) => s.end('HTTP/1.1 200 OK\r\nContent-Length: 50\r\n\r\n{"half":'));
    expect(await post(cut.url, {}, '{}')).toBe('the reply ended before its body did');
    const junk = await rawServer((s) => s.end('SSH-2.0-OpenSSH\r\n\r\n'));
    expect(await post(junk.url, {}, '{}')).toBe('the reply is not HTTP/1.1');
    cut.server.close();
    junk.server.close();
  });

  it('refuses a header value that would split the request head', () => {
    expect(() => requestHead(new URL(`${base}/h`), { Authorization: 'Bearer a\r\nX-Evil: 1' }, 2)).toThrow(/cannot carry/);
    expect(requestHead(new URL(`${base}/h?a=1`), { Authorization: 'Bearer t' }, 2)).toBe(
      `POST /h?a=1 HTTP/1.1\r\nHost: ${new URL(base).host}\r\nAuthorization: Bearer t\r\nContent-Length: 2\r\nConnection: close\r\n\r\n`,
    );
  });

  it('waits for the rest of a reply and parses a complete one without waiting for the close', () => {
    const head = 'HTTP/1.1 200 OK\r\nContent-Length: 7\r\n';
    expect(parseReply(Buffer.from(head), false)).toBeUndefined();
    expect(parseReply(Buffer.from(`${head}\r\n{"a":`), false)).toBeUndefined();
    expect(parseReply(Buffer.from(`${head}\r\n{"a":1}`), false)).toEqual({ status: 200, body: '{"a":1}' });
    expect(parseReply(Buffer.from('HTTP/1.1 204 No Content\r\n\r\n'), true)).toEqual({ status: 204, body: '' });
    expect(parseReply(Buffer.from('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n'), false)).toBeUndefined();
  });
});
