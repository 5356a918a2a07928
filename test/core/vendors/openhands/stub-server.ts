/**
 * A stand-in OpenHands agent server written from research/openhands/FACTS.md (it cannot be installed
 * here): `/server_info`, `/api/conversations/search`, `/api/conversations/{id}`, events search with
 * paging (`page_id` starts the page at that event), the `/sockets/events/{id}` WebSocket (first-frame
 * auth within its window, close 4001 / 4004, the `full_state` snapshot first, replay by `resend_mode`,
 * then live frames), and the control POSTs (`events` append with `run`, `pause`, `interrupt`,
 * `respond_to_confirmation`). The run is driven by the test one step at a time (`step`): a step's
 * prompt is built from the log, so a user message appended mid-run is read at the next step (the
 * step's thought quotes it), never by the step already under way.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export type Ev = Record<string, unknown> & { id: string; timestamp: string; kind: string; source: string };

interface Conv {
  id: string;
  title: string;
  status: string;
  events: Ev[];
  sockets: Set<WebSocket>;
  deleted: boolean;
  /** User message texts the agent has not read yet. */
  unread: string[];
  /** What the model call in flight was given (it started when the previous step ended). */
  inflight: string[];
  steps: number;
}

let clock = Date.UTC(2026, 7, 22, 10, 0, 0);
/** Naive server-local ISO time, strictly increasing. */
const now = (): string => new Date((clock += 1_000)).toISOString().replace('Z', '').replace(/\.000$/, '.000001');

const text = (t: string) => [{ cache_prompt: false, type: 'text', text: t }];

export interface StubOptions {
  key?: string;
  version?: string;
}

export class StubAgentServer {
  readonly conversations = new Map<string, Conv>();
  /** The POST bodies received, in order (the test waits on them). */
  readonly posts: { path: string; body: unknown }[] = [];
  /** Every auth frame the sockets received, and every other frame. */
  readonly socketFrames: unknown[] = [];
  key: string;
  version: string;
  /** Connections refused so far (wrong key), by REST 401 or close 4001. */
  refusals = 0;
  private server: Server | null = null;
  private wss: WebSocketServer | null = null;
  private postWaiters: { path: RegExp; resolve: () => void }[] = [];
  port = 0;

  constructor(options: StubOptions = {}) {
    this.key = options.key ?? 'oh-session-key-0123456789abcdef';
    this.version = options.version ?? '1.43.1';
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(port = 0): Promise<void> {
    this.server = createServer((req, res) => void this.http(req, res));
    this.wss = new WebSocketServer({ noServer: true });
    this.server.on('upgrade', (req, socket, head) => {
      const m = /^\/sockets\/events\/([^/?]+)/.exec(req.url ?? '');
      if (!m) return socket.destroy();
      this.wss!.handleUpgrade(req, socket, head, (ws) => this.socket(ws, decodeURIComponent(m[1]), new URL(req.url ?? '/', 'http://x')));
    });
    await new Promise<void>((resolve) => this.server!.listen(port, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /** Stops listening and drops every socket (the server is down). */
  async stop(): Promise<void> {
    for (const ws of this.wss?.clients ?? []) ws.terminate();
    this.wss?.close();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  /** Starts a conversation: the system prompt, the first user message, a run (status running). */
  create(task = 'Please fix the failing test.', title = 'Fix the failing test'): string {
    const id = randomUUID();
    const c: Conv = { id, title, status: 'idle', events: [], sockets: new Set(), deleted: false, unread: [], inflight: [], steps: 0 };
    this.conversations.set(id, c);
    this.append(c, { kind: 'SystemPromptEvent', source: 'agent', system_prompt: text('You are OpenHands.')[0], tools: [] });
    this.userMessage(c, task);
    this.setStatus(c, 'running');
    return id;
  }

  conv(id: string): Conv {
    const c = this.conversations.get(id);
    if (!c) throw new Error(`no conversation ${id}`);
    return c;
  }

  /**
   * One agent step: the model response of the call in flight (its prompt was built from the log when
   * the previous step ended, so a message appended since is not in it), then a terminal action and
   * its observation; the next call starts at once with the log as it is now. `confirm` stops before
   * executing (confirmation mode); `finish` answers with text and ends the task.
   */
  step(id: string, opts: { confirm?: boolean; finish?: string; command?: string } = {}): Ev | null {
    const c = this.conv(id);
    if (c.status !== 'running') return null;
    const read = c.inflight.splice(0);
    c.steps += 1;
    const resp = `resp-${c.steps}`;
    if (opts.finish !== undefined) {
      const ev = this.append(c, { kind: 'MessageEvent', source: 'agent', llm_message: { role: 'assistant', content: text(opts.finish), thinking_blocks: [] }, llm_response_id: resp, activated_skills: [], extended_content: [] });
      this.setStatus(c, 'finished');
      this.fullState(c);
      return ev;
    }
    const callId = `call_${c.steps}`;
    const command = opts.command ?? `pytest -x # step ${c.steps}`;
    const thought = read.length > 0 ? `Read from the user: ${read.join(' | ')}` : 'Continuing.';
    const action = this.append(c, {
      kind: 'ActionEvent',
      source: 'agent',
      thought: text(thought),
      thinking_blocks: [],
      action: { command, is_input: false, reset: false, kind: 'TerminalAction' },
      tool_name: 'terminal',
      tool_call_id: callId,
      tool_call: { id: callId, name: 'terminal', arguments: JSON.stringify({ command, security_risk: 'LOW' }), origin: 'completion' },
      llm_response_id: resp,
      security_risk: 'LOW',
      summary: `step ${c.steps}`,
    });
    if (opts.confirm) {
      this.setStatus(c, 'waiting_for_confirmation');
      this.fullState(c);
      return action;
    }
    this.observe(c, action);
    c.inflight = c.unread.splice(0);
    return action;
  }

  private observe(c: Conv, action: Ev): void {
    this.append(c, {
      kind: 'ObservationEvent',
      source: 'environment',
      tool_name: 'terminal',
      tool_call_id: action.tool_call_id,
      action_id: action.id,
      observation: { content: text('1 passed'), is_error: false, command: (action.action as { command: string }).command, exit_code: 0, timeout: false, kind: 'TerminalObservation' },
    });
  }

  /** Pending actions: no matching observation or rejection. */
  private unmatched(c: Conv): Ev[] {
    const done = new Set(c.events.filter((e) => e.tool_call_id && e.kind !== 'ActionEvent').map((e) => e.tool_call_id));
    return c.events.filter((e) => e.kind === 'ActionEvent' && !done.has(e.tool_call_id));
  }

  /** Deletes the conversation while watched: pauses a running one, then goes silent (the socket stays open). */
  delete(id: string): void {
    const c = this.conv(id);
    if (c.status === 'running') {
      this.setStatus(c, 'paused');
      this.append(c, { kind: 'PauseEvent', source: 'user' });
    }
    c.deleted = true;
    this.conversations.delete(id);
  }

  /** Sends a raw text frame to every socket of the conversation (malformed, oversized). */
  sendRaw(id: string, frame: string): void {
    for (const ws of this.conv(id).sockets) ws.send(frame);
  }

  /** Resolves at the next POST whose path matches. */
  nextPost(path: RegExp): Promise<void> {
    return new Promise((resolve) => this.postWaiters.push({ path, resolve }));
  }

  /** Closes every conversation socket (a network drop); the server stays up. */
  dropSockets(): void {
    for (const c of this.conversations.values()) for (const ws of c.sockets) ws.terminate();
  }

  private append(c: Conv, body: Record<string, unknown>): Ev {
    const last = c.events.at(-1);
    const ev = { id: randomUUID(), timestamp: now(), ...(last ? { parent_id: last.id } : {}), ...body } as Ev;
    // `kind` is serialized last (pydantic's discriminator).
    const { kind, ...rest } = ev;
    const wire = { ...rest, kind } as Ev;
    c.events.push(wire);
    this.publish(c, wire);
    return wire;
  }

  private publish(c: Conv, ev: Ev): void {
    if (c.deleted) return;
    for (const ws of c.sockets) ws.send(JSON.stringify(ev));
  }

  private setStatus(c: Conv, status: string): void {
    // A run (re)starting begins a model call with what the log holds now.
    if (status === 'running' && c.status !== 'running') c.inflight.push(...c.unread.splice(0));
    c.status = status;
    this.append(c, { kind: 'ConversationStateUpdateEvent', source: 'environment', key: 'execution_status', value: status });
  }

  private fullState(c: Conv, only?: WebSocket): void {
    const ev = { id: randomUUID(), timestamp: now(), source: 'environment', key: 'full_state', value: { execution_status: c.status, max_iterations: 500 }, kind: 'ConversationStateUpdateEvent' };
    if (only) only.send(JSON.stringify(ev));
    else this.publish(c, ev as Ev);
  }

  private userMessage(c: Conv, t: string): Ev {
    if (c.status === 'finished' || c.status === 'stuck') this.setStatus(c, 'idle');
    const ev = this.append(c, { kind: 'MessageEvent', source: 'user', llm_message: { role: 'user', content: text(t), thinking_blocks: [] }, activated_skills: [], extended_content: [] });
    c.unread.push(t);
    this.append(c, { kind: 'ConversationStateUpdateEvent', source: 'environment', key: 'last_user_message_id', value: ev.id });
    return ev;
  }

  private socket(ws: WebSocket, id: string, url: URL): void {
    let authed = this.key === '';
    const timer = setTimeout(() => authed || ws.close(4001, 'Authentication failed'), 10_000);
    const begin = (): void => {
      clearTimeout(timer);
      const c = this.conversations.get(id);
      if (!c) return ws.close(4004, 'Conversation not found');
      c.sockets.add(ws);
      ws.on('close', () => c.sockets.delete(ws));
      this.fullState(c, ws);
      const mode = url.searchParams.get('resend_mode');
      const after = url.searchParams.get('after_timestamp');
      const replay = mode === 'all' ? c.events : mode === 'since' && after ? c.events.filter((e) => e.timestamp >= after) : [];
      for (const e of replay) ws.send(JSON.stringify(e));
    };
    if (authed) begin();
    ws.on('message', (raw) => {
      let frame: Record<string, unknown> | null = null;
      try {
        frame = JSON.parse(String(raw)) as Record<string, unknown>;
      } catch {
        frame = null;
      }
      this.socketFrames.push(frame);
      if (!authed) {
        if (frame?.type === 'auth' && frame.session_api_key === this.key) {
          authed = true;
          return begin();
        }
        this.refusals += 1;
        return ws.close(4001, 'Authentication failed');
      }
    });
  }

  private async http(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://x');
    const send = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (url.pathname === '/server_info')
      return send(200, { uptime: 1, idle_time: 0, title: 'OpenHands Agent Server', version: this.version, sdk_version: this.version, usable_tools: ['terminal', 'file_editor'], docs: '/docs', redoc: '/redoc' });
    if (url.pathname === '/alive' || url.pathname === '/health') return send(200, { status: 'ok' });
    if (!url.pathname.startsWith('/api/')) return send(404, { detail: 'Not Found' });
    if (this.key !== '' && req.headers['x-session-api-key'] !== this.key) {
      this.refusals += 1;
      return send(401, { detail: 'Unauthorized' });
    }
    let body: unknown = undefined;
    if (req.method === 'POST') {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        return send(422, { detail: [{ type: 'json_invalid', msg: 'JSON decode error' }] });
      }
      this.posts.push({ path: url.pathname, body });
    }
    const p = url.pathname.split('/').slice(3).map(decodeURIComponent);
    const info = (c: Conv) => ({ id: c.id, title: c.title, execution_status: c.status, confirmation_policy: { kind: 'NeverConfirm' }, created_at: c.events[0]?.timestamp, updated_at: c.events.at(-1)?.timestamp });
    const settled = () => {
      for (const w of this.postWaiters.filter((w) => w.path.test(url.pathname))) {
        this.postWaiters.splice(this.postWaiters.indexOf(w), 1);
        w.resolve();
      }
    };
    if (req.method === 'GET' && p[0] === 'search') {
      const all = [...this.conversations.values()];
      const limit = Number(url.searchParams.get('limit') ?? 100);
      const from = url.searchParams.get('page_id');
      const start = from ? Math.max(0, all.findIndex((c) => c.id.replaceAll('-', '') === from)) : 0;
      const items = all.slice(start, start + limit);
      const next = all[start + limit];
      return send(200, { items: items.map(info), next_page_id: next ? next.id.replaceAll('-', '') : null });
    }
    const c = this.conversations.get(p[0] ?? '');
    if (req.method === 'GET' && p.length === 1) return c ? send(200, info(c)) : send(404, { detail: 'Not Found' });
    if (req.method === 'GET' && p[1] === 'events' && p[2] === 'search') {
      if (!c) return send(404, { detail: `Conversation not found: ${p[0]}` });
      const limit = Math.min(100, Number(url.searchParams.get('limit') ?? 100));
      const from = url.searchParams.get('page_id');
      const start = from ? c.events.findIndex((e) => e.id === from) : 0;
      if (start < 0) return send(200, { items: [], next_page_id: null });
      const items = c.events.slice(start, start + limit);
      return send(200, { items, next_page_id: c.events[start + limit]?.id ?? null });
    }
    if (req.method !== 'POST') return send(404, { detail: 'Not Found' });
    if (!c) return send(400, { detail: 'Conversation not found' });
    const b = (body ?? {}) as Record<string, unknown>;
    if (p[1] === 'events' && p.length === 2) {
      if (b.role !== 'user') return send(500, { detail: 'Internal Server Error', exception: 'Only user messages are allowed to be sent to the agent.' });
      const parts = Array.isArray(b.content) ? (b.content as { text?: string }[]) : null;
      if (!parts) return send(422, { detail: [{ type: 'list_type', loc: ['body', 'content'], msg: 'Input should be a valid list' }] });
      this.userMessage(c, parts.map((x) => x.text ?? '').join(''));
      if (b.run === true && c.status !== 'running') this.setStatus(c, 'running');
      send(200, { success: true });
      return settled();
    }
    if (p[1] === 'pause') {
      if (c.status === 'running' || c.status === 'idle') {
        this.setStatus(c, 'paused');
        this.append(c, { kind: 'PauseEvent', source: 'user' });
        this.fullState(c);
      }
      send(200, { success: true });
      return settled();
    }
    if (p[1] === 'interrupt') {
      for (const a of this.unmatched(c))
        this.append(c, { kind: 'AgentErrorEvent', source: 'agent', tool_name: a.tool_name, tool_call_id: a.tool_call_id, error: 'Tool call interrupted before completion. The conversation was paused.', classification: { kind: 'agent_action', retryable: true, user_action: 'retry' } });
      if (c.status !== 'paused') this.setStatus(c, 'paused');
      this.append(c, { kind: 'InterruptEvent', source: 'user' });
      this.fullState(c);
      send(200, { success: true });
      return settled();
    }
    if (p[1] === 'events' && p[2] === 'respond_to_confirmation') {
      const pending = this.unmatched(c);
      if (b.accept === true) {
        if (c.status === 'waiting_for_confirmation') {
          this.setStatus(c, 'running');
          for (const a of pending) this.observe(c, a);
        }
      } else if (c.status === 'waiting_for_confirmation') {
        this.setStatus(c, 'idle');
        for (const a of pending)
          this.append(c, { kind: 'UserRejectObservation', source: 'environment', tool_name: a.tool_name, tool_call_id: a.tool_call_id, rejection_reason: typeof b.reason === 'string' ? b.reason : 'User rejected the action.', rejection_source: 'user', action_id: a.id });
      }
      send(200, { success: true });
      return settled();
    }
    return send(404, { detail: 'Not Found' });
  }
}
