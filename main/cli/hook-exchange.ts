/**
 * One HTTP/1.1 POST over a plain loopback socket, for the hook shim. `node:http` costs the shim a
 * tenth of a `node -e 0` just to load; the daemon's reply to a hook is one small response on a
 * fresh `Connection: close` socket, so a socket, a request head and a response parser (status line,
 * headers, a `Content-Length` or chunked body) are all it needs.
 */
import { connect } from 'node:net';

/** A parsed reply: status code and body text. */
export interface HookReply {
  readonly status: number;
  readonly body: string;
}

/** The request head of a POST of `length` bytes; throws on a header value that could split the head. */
export function requestHead(url: URL, headers: Readonly<Record<string, string>>, length: number): string {
  let head = `POST ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\n`;
  for (const [name, value] of Object.entries(headers)) {
    if (!/^[\t\x20-\x7e]*$/.test(value)) throw new Error(`the ${name} header has characters a header cannot carry`);
    head += `${name}: ${value}\r\n`;
  }
  return `${head}Content-Length: ${length}\r\nConnection: close\r\n\r\n`;
}

/**
 * Parses a response from the bytes received so far: the reply once complete, undefined while more
 * is needed (`ended` false), or an error message for a malformed or cut-off reply.
 */
export function parseReply(bytes: Buffer, ended: boolean): HookReply | string | undefined {
  const end = bytes.indexOf('\r\n\r\n');
  if (end === -1) return ended ? 'the reply ended inside its headers' : undefined;
  const lines = bytes.toString('latin1', 0, end).split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})(?: |$)/.exec(lines[0]);
  if (status === null) return 'the reply is not HTTP/1.1';
  let length = -1;
  let chunked = false;
  for (let i = 1; i < lines.length; i++) {
    const colon = lines[i].indexOf(':');
    const name = lines[i].slice(0, colon).trim().toLowerCase();
    const value = lines[i].slice(colon + 1).trim();
    if (name === 'content-length') length = Number(value);
    else if (name === 'transfer-encoding') chunked = value.toLowerCase().includes('chunked');
  }
  const rest = bytes.subarray(end + 4);
  let body: Buffer | undefined;
  if (chunked) body = unchunk(rest);
  else if (length >= 0) body = rest.length >= length ? rest.subarray(0, length) : undefined;
  else body = ended ? rest : undefined;
  if (body === undefined) return ended ? 'the reply ended before its body did' : undefined;
  return { status: Number(status[1]), body: body.toString('utf8') };
}

/** A chunked body decoded, or undefined while its last chunk has not arrived. */
function unchunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf('\r\n', at);
    if (eol === -1) return undefined;
    const size = parseInt(bytes.toString('latin1', at, eol), 16);
    if (!Number.isFinite(size)) return undefined;
    if (size === 0) return Buffer.concat(parts);
    if (bytes.length < eol + 2 + size + 2) return undefined;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}

/**
 * Connects at once and sends the request when `body` is ready; `onReply` gets the reply or a
 * problem (a socket error code such as ECONNREFUSED, or a parse error) exactly once. Returns a
 * function that abandons the exchange.
 */
export function exchange(
  url: URL,
  headers: Readonly<Record<string, string>>,
  body: Promise<Buffer>,
  onSent: () => void,
  onReply: (reply: HookReply | string) => void,
): () => void {
  let done = false;
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  const socket = connect(Number(url.port) || 80, host);
  const finish = (reply: HookReply | string): void => {
    if (done) return;
    done = true;
    socket.destroy();
    onReply(reply);
  };
  socket.setNoDelay(true);
  const received: Buffer[] = [];
  const settle = (ended: boolean): void => {
    const reply = parseReply(Buffer.concat(received), ended);
    if (reply !== undefined) finish(reply);
  };
  socket.on('data', (chunk: Buffer) => {
    received.push(chunk);
    settle(false);
  });
  socket.on('end', () => settle(true));
  socket.on('close', () => settle(true));
  socket.on('error', (e: NodeJS.ErrnoException) => finish(e.code ?? e.message));
  void body.then((payload) => {
    if (done) return;
    let head: string;
    try {
      head = requestHead(url, headers, payload.length);
    } catch (error) {
      finish((error as Error).message);
      return;
    }
    socket.write(Buffer.concat([Buffer.from(head, 'latin1'), payload]));
    onSent();
  });
  return () => finish('abandoned');
}
