/**
 * Newline-delimited JSON-RPC framing over an agent's stdio (ACP and the Codex app-server both use
 * one JSON message per line). Partial lines wait for their newline; a line that is not a JSON-RPC
 * message (log output, a banner, broken JSON) is reported to `onBadLine` and skipped, never parsed
 * as protocol; an oversize line is dropped the same way. Writing after the peer went away fails
 * quietly with `false` (the exit handler reports the death).
 */
import { StringDecoder } from 'node:string_decoder';
import type { Readable, Writable } from 'node:stream';

/** One decoded JSON-RPC message (request, notification or response), as received. */
export type RpcMessage = Record<string, unknown>;

/** Longest accepted line (a session/update can carry a large tool output). */
export const MAX_LINE_CHARS = 32 * 1024 * 1024;

/** Construction options. */
export interface LineChannelOptions {
  readonly maxLineChars?: number;
  /** A skipped stdout line and why it was skipped (truncated by the caller for the log). */
  readonly onBadLine?: (line: string, why: string) => void;
}

/** True for a JSON object shaped like a JSON-RPC 2.0 message (the `jsonrpc` member may be absent: Codex omits it). */
export function isRpcMessage(value: unknown): value is RpcMessage {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as RpcMessage;
  if (v['jsonrpc'] !== undefined && v['jsonrpc'] !== '2.0') return false;
  if (typeof v['method'] === 'string') return true;
  const id = v['id'];
  const hasId = typeof id === 'number' || typeof id === 'string' || id === null;
  return hasId && ('result' in v || 'error' in v);
}

/** The framing of one stdio pair. */
export class LineChannel {
  private readonly decoder = new StringDecoder('utf8');
  private buffer = '';
  private overflow = false;
  private closed = false;
  private readonly messageHandlers = new Set<(message: RpcMessage) => void>();
  private readonly closeHandlers = new Set<() => void>();
  private readonly maxLineChars: number;
  /** Bytes-level tap for measurements: called with each line written, after the write call. */
  onWrite: ((line: string) => void) | null = null;

  constructor(
    input: Readable,
    private readonly output: Writable,
    private readonly options: LineChannelOptions = {},
  ) {
    this.maxLineChars = options.maxLineChars ?? MAX_LINE_CHARS;
    input.on('data', (chunk: Buffer | string) => this.feed(typeof chunk === 'string' ? chunk : this.decoder.write(chunk)));
    input.on('end', () => this.end());
    input.on('close', () => this.end());
    input.on('error', () => this.end());
    output.on('error', () => {
      // EPIPE after the agent died: the exit handler reports it.
    });
  }

  /** Receives every well-formed message, in order. */
  onMessage(handler: (message: RpcMessage) => void): () => void {
    this.messageHandlers.add(handler);
    return () => this.messageHandlers.delete(handler);
  }

  /** Called once when the input ends (the agent closed its stdout or exited). */
  onClose(handler: () => void): () => void {
    if (this.closed) queueMicrotask(handler);
    else this.closeHandlers.add(handler);
    return () => this.closeHandlers.delete(handler);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Writes one message as a line; false when the channel or the pipe is gone. */
  send(message: RpcMessage): boolean {
    if (this.closed || this.output.destroyed || this.output.writableEnded) return false;
    const line = `${JSON.stringify(message)}\n`;
    try {
      this.output.write(line);
    } catch {
      return false;
    }
    this.onWrite?.(line);
    return true;
  }

  /** Ends our side: closes the agent's stdin (ACP agents exit on EOF). */
  endOutput(): void {
    try {
      if (!this.output.writableEnded) this.output.end();
    } catch {
      // Already gone.
    }
  }

  /** Feeds decoded text (exposed for tests that frame without a process). */
  feed(text: string): void {
    if (this.closed) return;
    let start = 0;
    for (;;) {
      const nl = text.indexOf('\n', start);
      if (nl === -1) break;
      const piece = text.slice(start, nl);
      start = nl + 1;
      if (this.overflow) {
        this.overflow = false;
        this.buffer = '';
        continue;
      }
      const line = this.buffer + piece;
      this.buffer = '';
      this.line(line);
    }
    if (this.overflow) return;
    this.buffer += text.slice(start);
    if (this.buffer.length > this.maxLineChars) {
      this.options.onBadLine?.(this.buffer.slice(0, 200), `line longer than ${this.maxLineChars} characters`);
      this.buffer = '';
      this.overflow = true;
    }
  }

  private line(raw: string): void {
    const text = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      this.options.onBadLine?.(text, 'not JSON');
      return;
    }
    if (!isRpcMessage(value)) {
      this.options.onBadLine?.(text, 'not a JSON-RPC message');
      return;
    }
    for (const handler of [...this.messageHandlers]) handler(value);
  }

  private end(): void {
    if (this.closed) return;
    const rest = this.buffer + this.decoder.end();
    this.buffer = '';
    if (rest.trim() !== '' && !this.overflow) this.line(rest);
    this.closed = true;
    for (const handler of [...this.closeHandlers]) handler();
    this.closeHandlers.clear();
  }
}
