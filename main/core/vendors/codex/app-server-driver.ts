/**
 * Drives `codex app-server` (Codex's own JSON-RPC: `initialize` + `initialized`, `thread/start` /
 * `thread/resume`, `turn/start`, `turn/interrupt`, item and turn notifications) behind the same
 * host interface as ACP: its items are translated into ACP `SessionUpdate` shapes so one mapping
 * serves both, and the thread id is the session.
 */
import type { Logger } from '../../logger';
import { spawnAgent, type AgentProcess, type SpawnSpec } from '../../launched/agent-process';
import { withBound } from '../../launched/bounds';
import { codexApprovalAnswer, codexApprovalAsk, codexItemUpdate, codexTurnEnd } from './app-server-translate';
import type { AgentDriver, AgentExit, AgentUpdate, DriverEvents, OpenedSession, TurnEnd } from '../../launched/driver';
import { JsonRpcPeer, RpcError } from '../../launched/jsonrpc-peer';
import { LineChannel } from '../../launched/line-channel';
import type { SteerAnswer } from '../../launched/steer/native-outcome';
import { SteerReceipts, type SteerReceipt } from '../../launched/steer/receipts';

/** Driver options. */
export interface CodexDriverOptions {
  readonly spawn: SpawnSpec;
  readonly events: DriverEvents;
  readonly logger: Logger;
  readonly requestTimeoutMs: number;
  readonly clientInfo: { readonly name: string; readonly version: string };
}

type Json = Record<string, unknown>;

interface OpenTurn {
  readonly resolve: (end: TurnEnd) => void;
  readonly reject: (error: Error) => void;
  id: string | null;
  usage: TurnEnd['usage'];
}

/** One `codex app-server` process with one thread. */
export class CodexDriver implements AgentDriver {
  private readonly proc: AgentProcess;
  private readonly peer: JsonRpcPeer;
  private thread: string | null = null;
  private turn: OpenTurn | null = null;
  /** Turns completed before turn/start answered (a fast agent). */
  private readonly early = new Map<string, Json>();
  /** Seen-by-agent receipts of accepted steers (`userMessage` items after the turn's own input). */
  private readonly receipts = new SteerReceipts();
  onPromptWritten: ((line: string) => void) | null = null;

  constructor(private readonly options: CodexDriverOptions) {
    this.proc = spawnAgent(options.spawn);
    const channel = new LineChannel(this.proc.child.stdout, this.proc.child.stdin, {
      onBadLine: (line, why) => options.logger.warn('agent stdout line skipped', { why, line: line.slice(0, 500) }),
    });
    channel.onMessage(() => options.events.activity?.());
    channel.onWrite = (line) => {
      if (this.onPromptWritten && line.includes('"turn/start"')) this.onPromptWritten(line);
    };
    this.peer = new JsonRpcPeer(channel, {
      defaultTimeoutMs: options.requestTimeoutMs,
      onStrayResponse: (m) => options.logger.warn('agent answered an unknown request', { id: m['id'] }),
    });
    this.peer.onNotification((method, params) => this.notification(method, (params ?? {}) as Json));
    this.peer.onRequest((method, params) => this.request(method, (params ?? {}) as Json));
    void this.proc.exited.then((exit) => {
      this.peer.close();
      this.receipts.close();
      const open = this.turn;
      this.turn = null;
      open?.reject(new Error(exit.reason));
      options.events.exit(exit);
    });
  }

  get pid(): number | null {
    return this.proc.pid;
  }

  get exited(): Promise<AgentExit> {
    return this.proc.exited;
  }

  async open(cwd: string, resume?: string): Promise<OpenedSession> {
    const bound = this.options.requestTimeoutMs;
    const initialize = (await withBound(
      'initialize',
      bound,
      this.peer.request<Json>('initialize', { clientInfo: { ...this.options.clientInfo, title: 'AEP Companion' }, capabilities: { experimentalApi: true } }, { timeoutMs: null }),
      this.options.events,
    )) ?? {};
    this.peer.notify('initialized');
    const started =
      resume !== undefined
        ? await withBound('thread/resume', bound, this.peer.request<Json>('thread/resume', { threadId: resume, cwd }, { timeoutMs: null }), this.options.events)
        : await withBound('thread/start', bound, this.peer.request<Json>('thread/start', { cwd }, { timeoutMs: null }), this.options.events);
    const thread = (started?.['thread'] ?? {}) as Json;
    if (typeof thread['id'] !== 'string' || thread['id'] === '') throw new Error('thread/start answered without a thread id');
    this.thread = thread['id'];
    return {
      session: this.thread,
      initialize,
      agentInfo: typeof initialize['userAgent'] === 'string' ? { userAgent: initialize['userAgent'] } : null,
      resumable: true,
    };
  }

  prompt(text: string): Promise<TurnEnd> {
    const threadId = this.requireThread();
    if (this.turn) return Promise.reject(new Error('a turn is already running'));
    return new Promise<TurnEnd>((resolve, reject) => {
      const open: OpenTurn = { resolve, reject, id: null, usage: null };
      this.turn = open;
      this.peer
        .request<Json>('turn/start', { threadId, input: [{ type: 'text', text, text_elements: [] }] }, { timeoutMs: null })
        .then((result) => {
          const id = ((result?.['turn'] ?? {}) as Json)['id'];
          if (typeof id !== 'string') throw new Error('turn/start answered without a turn id');
          open.id = id;
          const done = this.early.get(id);
          if (done) this.finishTurn(done);
        })
        .catch((error: unknown) => {
          if (this.turn === open) this.turn = null;
          reject(error instanceof Error ? error : new Error(String(error)));
        });
    });
  }

  /** The running turn's id once `turn/start` answered (what `turn/steer` names in `expectedTurnId`). */
  get activeTurnId(): string | null {
    return this.turn?.id ?? null;
  }

  /**
   * The app-server's native `turn/steer { threadId, expectedTurnId, input }`: the same turn id back
   * when it was taken into the running turn, `-32600` when no turn (or another one) is active.
   * Without a known turn id nothing is written (it provably never reached the agent).
   */
  async steer(text: string): Promise<SteerAnswer> {
    const threadId = this.requireThread();
    const expectedTurnId = this.turn?.id;
    if (!expectedTurnId) return { kind: 'transport', written: false, message: 'no active turn id yet' };
    try {
      const result = await this.peer.request<Json>('turn/steer', { threadId, expectedTurnId, input: [{ type: 'text', text, text_elements: [] }] });
      return { kind: 'result', result };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const message = error instanceof Error ? error.message : String(error);
      return typeof code === 'number' ? { kind: 'error', code, message } : { kind: 'transport', written: true, message };
    }
  }

  /** The seen-by-agent receipt of a steer of `text` accepted into `turnId`, or null when none came. */
  receipt(turnId: string, text: string): Promise<SteerReceipt | null> {
    return this.receipts.receipt(turnId, text);
  }

  async cancel(): Promise<void> {
    const threadId = this.requireThread();
    const turnId = this.turn?.id;
    if (!turnId) return;
    await this.peer.request('turn/interrupt', { threadId, turnId });
  }

  async close(boundMs: number): Promise<void> {
    await this.proc.end(boundMs);
  }

  private notification(method: string, params: Json): void {
    this.receipts.observe(method, params);
    if (method === 'turn/completed') {
      const turn = (params['turn'] ?? {}) as Json;
      const id = turn['id'];
      if (typeof id === 'string') this.receipts.turnEnded(id);
      if (this.turn && (this.turn.id === null || this.turn.id === id)) {
        if (this.turn.id === null && typeof id === 'string') this.early.set(id, turn);
        else this.finishTurn(turn);
      }
      return;
    }
    if (method === 'thread/tokenUsage/updated') {
      const last = ((params['tokenUsage'] ?? {}) as Json)['last'] as Json | undefined;
      if (this.turn && last) this.turn.usage = { inputTokens: Number(last['inputTokens'] ?? 0), outputTokens: Number(last['outputTokens'] ?? 0), totalTokens: Number(last['totalTokens'] ?? 0) };
    }
    const update: AgentUpdate | null = codexItemUpdate(method, params);
    if (update) this.options.events.update(update);
  }

  private async request(method: string, params: Json): Promise<unknown> {
    const ask = codexApprovalAsk(method, params);
    if (ask === null) throw new RpcError(-32601, `method not found: ${method}`);
    return codexApprovalAnswer(await this.options.events.permission(ask));
  }

  private finishTurn(turn: Json): void {
    const open = this.turn;
    if (!open) return;
    this.turn = null;
    if (typeof turn['id'] === 'string') this.early.delete(turn['id']);
    open.resolve(codexTurnEnd(turn, open.usage));
  }

  private requireThread(): string {
    if (this.thread === null) throw new Error('no thread is open');
    return this.thread;
  }
}
