/**
 * A minimal Agent Client Protocol client (JSON-RPC 2.0, one message per line over the agent's
 * stdio) for driving Qwen Code as `qwen --acp`: initialize, open a session, send a prompt, then
 * close stdin so the agent shuts down and fires its SessionEnd hook. Permission requests are
 * answered with the first allowing option; other agent-to-client requests are refused.
 */
import type { ChildProcess } from 'node:child_process';

interface RpcMessage {
  readonly jsonrpc: '2.0';
  readonly id?: number | string;
  readonly method?: string;
  readonly params?: Record<string, unknown>;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** An ACP connection over a spawned agent's stdin/stdout. */
export class AcpClient {
  /** Notifications the agent sent (e.g. `session/update`), in order. */
  readonly notifications: RpcMessage[] = [];
  private nextId = 1;
  private buffer = '';
  private readonly pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void }
  >();

  constructor(private readonly child: ChildProcess) {
    child.stdout?.on('data', (chunk: Buffer) => this.onData(chunk.toString('utf8')));
    child.on('close', () => {
      for (const { reject } of this.pending.values()) reject(new Error('the ACP agent exited'));
      this.pending.clear();
    });
  }

  /** Sends a request; resolves with its result, rejects on an error reply, exit or timeout. */
  request<T = unknown>(
    method: string,
    params: Record<string, unknown>,
    timeoutMs = 120_000,
  ): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`ACP ${method}: no reply within ${timeoutMs} ms`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v as T);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.write({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** initialize + session/new in `cwd`; resolves with the session id. */
  async openSession(cwd: string): Promise<string> {
    await this.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    });
    const created = await this.request<{ sessionId: string }>('session/new', {
      cwd,
      mcpServers: [],
    });
    return created.sessionId;
  }

  /** Sends one text prompt; resolves with the stop reason when the turn ends. */
  async prompt(sessionId: string, text: string): Promise<string> {
    const result = await this.request<{ stopReason?: string }>('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text }],
    });
    return result.stopReason ?? 'unknown';
  }

  /** Closes the agent's stdin: the orderly end of an ACP session. */
  end(): void {
    this.child.stdin?.end();
  }

  private write(message: RpcMessage): void {
    this.child.stdin?.write(`${JSON.stringify(message)}\n`);
  }

  private onData(text: string): void {
    this.buffer += text;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) !== -1) {
      const line = this.buffer.slice(0, newline).trim();
      this.buffer = this.buffer.slice(newline + 1);
      if (!line.startsWith('{')) continue;
      let message: RpcMessage;
      try {
        message = JSON.parse(line) as RpcMessage;
      } catch {
        continue;
      }
      this.onMessage(message);
    }
  }

  private onMessage(message: RpcMessage): void {
    if (message.method === undefined && typeof message.id === 'number') {
      const waiter = this.pending.get(message.id);
      if (!waiter) return;
      this.pending.delete(message.id);
      if (message.error)
        waiter.reject(new Error(`ACP error ${message.error.code}: ${message.error.message}`));
      else waiter.resolve(message.result);
      return;
    }
    if (message.method !== undefined && message.id === undefined) {
      this.notifications.push(message);
      return;
    }
    if (message.method === 'session/request_permission') {
      const options = (message.params?.options ?? []) as Array<{ optionId: string; kind?: string }>;
      const allow = options.find((o) => o.kind?.startsWith('allow')) ?? options[0];
      this.write({
        jsonrpc: '2.0',
        id: message.id,
        result: {
          outcome: allow
            ? { outcome: 'selected', optionId: allow.optionId }
            : { outcome: 'cancelled' },
        },
      });
      return;
    }
    this.write({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: -32601, message: `the test client does not implement ${message.method}` },
    } as RpcMessage);
  }
}
