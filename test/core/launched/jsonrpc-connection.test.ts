/** The stdio framing (LineChannel) and the JSON-RPC peer over it, with real streams. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { JsonRpcPeer, RpcClosedError, RpcError, RpcTimeoutError } from '../../../main/core/launched/jsonrpc-peer';
import { isRpcMessage, LineChannel, type RpcMessage } from '../../../main/core/launched/line-channel';

/** Two channels wired back to back (a → b and b → a). */
function pair() {
  const ab = new PassThrough();
  const ba = new PassThrough();
  const bad: string[] = [];
  const a = new LineChannel(ba, ab, { onBadLine: (line, why) => bad.push(`a:${why}:${line}`) });
  const b = new LineChannel(ab, ba, { onBadLine: (line, why) => bad.push(`b:${why}:${line}`) });
  return { a, b, ab, ba, bad };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('LineChannel framing', () => {
  it('joins partial lines, splits several messages in one chunk, handles CRLF and multi-byte characters across chunks', async () => {
    const input = new PassThrough();
    const got: RpcMessage[] = [];
    const channel = new LineChannel(input, new PassThrough());
    channel.onMessage((m) => got.push(m));
    const text = '{"jsonrpc":"2.0","method":"a","params":{"t":"é✓"}}\r\n{"jsonrpc":"2.0","id":1,"result":null}\n';
    const bytes = Buffer.from(text, 'utf8');
    // Split inside the multi-byte characters and inside the first line.
    for (const [from, to] of [[0, 20], [20, 41], [41, 43], [43, bytes.length]]) input.write(bytes.subarray(from, to));
    await tick();
    expect(got).toEqual([{ jsonrpc: '2.0', method: 'a', params: { t: 'é✓' } }, { jsonrpc: '2.0', id: 1, result: null }]);
  });

  it('skips and reports lines that are not JSON-RPC, and keeps going', async () => {
    const input = new PassThrough();
    const got: RpcMessage[] = [];
    const bad: string[] = [];
    const channel = new LineChannel(input, new PassThrough(), { onBadLine: (_l, why) => bad.push(why) });
    channel.onMessage((m) => got.push(m));
    input.write('Loading model...\n{"broken":\n[1,2]\n{"jsonrpc":"1.0","method":"x"}\n{"id":3}\n\n   \n{"id":4,"result":{}}\n');
    await tick();
    expect(bad).toEqual(['not JSON', 'not JSON', 'not a JSON-RPC message', 'not a JSON-RPC message', 'not a JSON-RPC message']);
    expect(got).toEqual([{ id: 4, result: {} }]);
  });

  it('drops an oversize line without buffering it and resumes at the next newline', async () => {
    const input = new PassThrough();
    const got: RpcMessage[] = [];
    const bad: string[] = [];
    const channel = new LineChannel(input, new PassThrough(), { maxLineChars: 64, onBadLine: (_l, why) => bad.push(why) });
    channel.onMessage((m) => got.push(m));
    input.write(`{"method":"${'x'.repeat(100)}`);
    input.write(`${'y'.repeat(100)}"}\n{"method":"ok"}\n`);
    await tick();
    expect(bad).toHaveLength(1);
    expect(got).toEqual([{ method: 'ok' }]);
  });

  it('delivers a last line without a newline at end of input, then closes', async () => {
    const input = new PassThrough();
    const got: RpcMessage[] = [];
    const channel = new LineChannel(input, new PassThrough());
    channel.onMessage((m) => got.push(m));
    let closed = false;
    channel.onClose(() => (closed = true));
    input.end('{"method":"last"}');
    await tick();
    expect(got).toEqual([{ method: 'last' }]);
    expect(closed).toBe(true);
    expect(channel.send({ method: 'late' })).toBe(false);
  });

  it('recognizes JSON-RPC shapes (Codex omits the jsonrpc member)', () => {
    expect(isRpcMessage({ method: 'turn/started' })).toBe(true);
    expect(isRpcMessage({ id: 'a', error: { code: 1 } })).toBe(true);
    expect(isRpcMessage({ id: 1 })).toBe(false);
    expect(isRpcMessage({ jsonrpc: '2.0', id: 1, method: 7 })).toBe(false);
  });
});

describe('JsonRpcPeer', () => {
  it('interleaves requests both ways, answering out of order, with notifications between', async () => {
    const { a, b } = pair();
    const pa = new JsonRpcPeer(a, { defaultTimeoutMs: 5_000 });
    const pb = new JsonRpcPeer(b, { defaultTimeoutMs: 5_000, withVersion: false });
    const notes: string[] = [];
    pa.onNotification((m) => notes.push(`a:${m}`));
    let release: () => void = () => undefined;
    const slow = new Promise<void>((r) => (release = r));
    pb.onRequest(async (method, params) => {
      if (method === 'slow') await slow;
      if (method === 'fail') throw new RpcError(-32000, 'nope', { why: 1 });
      if (method === 'ask-back') return pb.request('from-b', { q: (params as { q: number }).q + 1 });
      pb.notify('progress', { method });
      return { method, params };
    });
    pa.onRequest((method, params) => ({ answeredBy: 'a', method, params }));
    const first = pa.request('slow', { n: 1 });
    const second = pa.request('fast', { n: 2 });
    const back = pa.request('ask-back', { q: 1 });
    await expect(second).resolves.toEqual({ method: 'fast', params: { n: 2 } });
    await expect(back).resolves.toEqual({ answeredBy: 'a', method: 'from-b', params: { q: 2 } });
    release();
    await expect(first).resolves.toEqual({ method: 'slow', params: { n: 1 } });
    await expect(pa.request('fail')).rejects.toMatchObject({ code: -32000, message: 'nope', data: { why: 1 } });
    expect(notes).toEqual(['a:progress', 'a:progress']);
    await expect(pa.request('missing-on-a', undefined).then(() => pb.request('x'))).resolves.toMatchObject({ answeredBy: 'a' });
  });

  it('answers an unhandled request with -32601 and reports a stray response', async () => {
    const { a, b } = pair();
    const stray: unknown[] = [];
    const pa = new JsonRpcPeer(a, { defaultTimeoutMs: 5_000, onStrayResponse: (m) => stray.push(m.id) });
    new JsonRpcPeer(b, { defaultTimeoutMs: 5_000 });
    await expect(pa.request('nobody')).rejects.toBeInstanceOf(RpcError);
    b.send({ jsonrpc: '2.0', id: 999, result: 1 });
    await tick();
    expect(stray).toEqual([999]);
  });

  it('bounds a request the peer never answers, and rejects pending requests when the channel closes', async () => {
    const { a, b, ba } = pair();
    const pa = new JsonRpcPeer(a, { defaultTimeoutMs: 50 });
    b.onMessage(() => undefined); // b reads and never answers
    await expect(pa.request('hang')).rejects.toBeInstanceOf(RpcTimeoutError);
    const unbounded = pa.request('turn', {}, { timeoutMs: null });
    ba.end();
    await expect(unbounded).rejects.toBeInstanceOf(RpcClosedError);
    await expect(pa.request('after')).rejects.toBeInstanceOf(RpcClosedError);
  });
});
