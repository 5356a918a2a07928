/**
 * Drives an ACP agent (Claude Code through its bridge, Qwen Code, Gemini CLI) with the official
 * ACP SDK over our stdio framing: `initialize` (no fs / terminal client capabilities: we implement
 * neither), `session/new` or `session/load`, `session/prompt`, the `session/cancel` notification,
 * `session/update` streaming and `session/request_permission` answered by the host.
 */
import { client, PROTOCOL_VERSION, RequestError, type ClientConnection } from '@agentclientprotocol/sdk';
import type { Logger } from '../logger';
import { acpStream } from './acp-stream';
import { spawnAgent, type AgentProcess, type SpawnSpec } from './agent-process';
import type { AgentDriver, AgentExit, AgentUpdate, DriverEvents, OpenedSession, PermissionAsk, TurnEnd } from './driver';
import { LineChannel } from './line-channel';
import { withBound } from './bounds';
import type { SteerAnswer } from './steer/native-outcome';

/** Driver options. */
export interface AcpDriverOptions {
  readonly spawn: SpawnSpec;
  readonly events: DriverEvents;
  readonly logger: Logger;
  /** Bound for every request but prompts (initialize, session/new, session/load). */
  readonly requestTimeoutMs: number;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** The `authenticate` method to call first when the agent offers it (credentials from the environment). */
  readonly authMethod?: string | null;
}

type Json = Readonly<Record<string, unknown>>;

/** One ACP agent process with one session. */
export class AcpDriver implements AgentDriver {
  private readonly proc: AgentProcess;
  private readonly channel: LineChannel;
  private readonly connection: ClientConnection;
  private session: string | null = null;
  onPromptWritten: ((line: string) => void) | null = null;

  constructor(private readonly options: AcpDriverOptions) {
    this.proc = spawnAgent(options.spawn);
    this.channel = new LineChannel(this.proc.child.stdout, this.proc.child.stdin, {
      onBadLine: (line, why) => options.logger.warn('agent stdout line skipped', { why, line: line.slice(0, 500) }),
    });
    const events = options.events;
    const app = client()
      .onRequest('session/request_permission', async (ctx) => {
        const outcome = await events.permission(ctx.params as unknown as PermissionAsk);
        return { outcome };
      })
      .onNotification('*', (ctx) => options.logger.debug('agent notification', { method: ctx.method }))
      .onRequest('*', (ctx) => {
        // No fs / terminal capability was declared: anything else is refused as the spec says.
        throw RequestError.methodNotFound(ctx.method);
      });
    // session/update is taken verbatim before the SDK sees it: an update its schema would refuse
    // (a newer or looser agent) still reaches the mapping, which reads only what it knows.
    const intercept = (m: Record<string, unknown>): boolean => {
      if (m['method'] !== 'session/update' || m['id'] !== undefined) return false;
      const update = (m['params'] as { update?: AgentUpdate } | null)?.update;
      if (update && typeof update.sessionUpdate === 'string') events.update(update);
      else options.logger.warn('session/update without an update skipped', {});
      return true;
    };
    this.connection = app.connect(acpStream(this.channel, intercept));
    this.channel.onMessage(() => events.activity?.());
    this.channel.onWrite = (line) => {
      if (this.onPromptWritten && line.includes('"session/prompt"')) this.onPromptWritten(line);
    };
    void this.proc.exited.then((exit) => {
      this.connection.close(new Error(exit.reason));
      events.exit(exit);
    });
  }

  get pid(): number | null {
    return this.proc.pid;
  }

  get exited(): Promise<AgentExit> {
    return this.proc.exited;
  }

  async open(cwd: string, resume?: string): Promise<OpenedSession> {
    const agent = this.connection.agent;
    const bound = this.options.requestTimeoutMs;
    const initialize = (await withBound(
      'initialize',
      bound,
      agent.request('initialize', {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: this.options.clientInfo.name, version: this.options.clientInfo.version },
      }),
      this.options.events,
    )) as unknown as Json;
    const offered = Array.isArray(initialize['authMethods']) ? (initialize['authMethods'] as Json[]).map((m) => m['id']) : [];
    const method = this.options.authMethod;
    if (method && offered.includes(method)) {
      await withBound('authenticate', bound, agent.request('authenticate', { methodId: method }), this.options.events);
    }
    const caps = (initialize['agentCapabilities'] ?? {}) as Json;
    const resumable = caps['loadSession'] === true;
    if (resume !== undefined) {
      if (!resumable) throw new Error('the agent does not advertise loadSession: this session cannot be resumed');
      await withBound('session/load', bound, agent.request('session/load', { sessionId: resume, cwd, mcpServers: [] }), this.options.events);
      this.session = resume;
    } else {
      const created = (await withBound('session/new', bound, agent.request('session/new', { cwd, mcpServers: [] }), this.options.events)) as unknown as Json;
      if (typeof created['sessionId'] !== 'string' || created['sessionId'] === '') throw new Error('session/new answered without a sessionId');
      this.session = created['sessionId'];
    }
    const info = initialize['agentInfo'];
    return {
      session: this.session,
      initialize,
      agentInfo: typeof info === 'object' && info !== null ? (info as Json) : null,
      resumable,
    };
  }

  async prompt(text: string): Promise<TurnEnd> {
    const sessionId = this.requireSession();
    const result = (await this.connection.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] })) as unknown as Json;
    const usage = result['usage'];
    return {
      stopReason: typeof result['stopReason'] === 'string' ? result['stopReason'] : 'end_turn',
      usage: typeof usage === 'object' && usage !== null ? (usage as TurnEnd['usage']) : null,
      raw: result,
    };
  }

  async cancel(): Promise<void> {
    const sessionId = this.requireSession();
    await this.connection.agent.notify('session/cancel', { sessionId });
  }

  /**
   * The ACP steering extension `_session/steering` (used only where the agent advertised
   * `_meta.steering.supported`): injected into the running turn, or `promptRequired` when none
   * runs (the host then sends an ordinary prompt). An error answer carries its code; any other
   * failure happened after the write and is ambiguous.
   */
  async steer(text: string): Promise<SteerAnswer> {
    const sessionId = this.requireSession();
    try {
      const result = await this.connection.agent.request('_session/steering', {
        sessionId,
        prompt: [{ type: 'text', text }],
        _meta: { steering: { idleBehavior: 'promptRequired' } },
      });
      return { kind: 'result', result };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const message = error instanceof Error ? error.message : String(error);
      return typeof code === 'number' ? { kind: 'error', code, message } : { kind: 'transport', written: true, message };
    }
  }

  async close(boundMs: number): Promise<void> {
    this.connection.close();
    await this.proc.end(boundMs);
  }

  private requireSession(): string {
    if (this.session === null) throw new Error('no session is open');
    return this.session;
  }
}
