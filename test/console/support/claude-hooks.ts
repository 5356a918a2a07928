/**
 * Claude Code hook traffic, POSTed the way Claude Code's `type: "http"` hooks do: the hook JSON as
 * the body, the hook token as a Bearer header, the opt-ins in the query string.
 */

/** What one hook call returned. */
export interface HookReply {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

/** A Claude Code session driven by hand. */
export class ClaudeSession {
  private tool = 0;
  constructor(
    private readonly daemon: { url: string; hookToken: string },
    readonly id: string,
    readonly cwd: string,
    private readonly optIns = 'instruct=1&permissions=1',
  ) {}

  /** POSTs one hook payload and returns the reply. */
  async post(event: string, fields: Record<string, unknown> = {}): Promise<HookReply> {
    const res = await fetch(`${this.daemon.url}/hooks/claude-code?${this.optIns}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${this.daemon.hookToken}` },
      body: JSON.stringify({
        session_id: this.id,
        transcript_path: `/home/dev/.claude/projects/${this.id}.jsonl`,
        cwd: this.cwd,
        permission_mode: 'default',
        hook_event_name: event,
        ...fields,
      }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  /** SessionStart. */
  start(): Promise<HookReply> {
    return this.post('SessionStart', { source: 'startup', model: 'claude-sonnet' });
  }

  /** UserPromptSubmit. */
  prompt(text: string): Promise<HookReply> {
    return this.post('UserPromptSubmit', { prompt: text });
  }

  /** A Bash call: PreToolUse then PostToolUse; returns both replies. */
  async bash(command: string): Promise<{ pre: HookReply; post: HookReply }> {
    const id = `toolu_${this.id.slice(0, 6)}_${++this.tool}`;
    const input = { command, description: `run ${command}` };
    const pre = await this.post('PreToolUse', { tool_name: 'Bash', tool_input: input, tool_use_id: id });
    const post = await this.post('PostToolUse', { tool_name: 'Bash', tool_input: input, tool_response: { stdout: 'ok', stderr: '', interrupted: false }, tool_use_id: id });
    return { pre, post };
  }

  /** PreToolUse only (a moment that can carry steering). */
  preTool(command: string): Promise<HookReply> {
    const id = `toolu_${this.id.slice(0, 6)}_${++this.tool}`;
    return this.post('PreToolUse', { tool_name: 'Bash', tool_input: { command }, tool_use_id: id });
  }

  /** PermissionRequest: held by the daemon until answered or timed out. */
  permission(command: string): Promise<HookReply> {
    return this.post('PermissionRequest', { tool_name: 'Bash', tool_input: { command }, permission_suggestions: [] });
  }

  /** AskUserQuestion through PermissionRequest: a form (AEP-0006), held until answered. */
  ask(questions: ReadonlyArray<{ header: string; question: string; options: readonly string[]; multiSelect?: boolean }>): Promise<HookReply> {
    const input = { questions: questions.map((q) => ({ header: q.header, question: q.question, multiSelect: q.multiSelect ?? false, options: q.options.map((label) => ({ label, description: label })) })) };
    return this.post('PermissionRequest', { tool_name: 'AskUserQuestion', tool_input: input, permission_suggestions: [] });
  }

  /** Stop (end of turn). */
  stop(): Promise<HookReply> {
    return this.post('Stop', { stop_hook_active: false, last_assistant_message: 'Done.' });
  }

  /** SessionEnd. */
  end(): Promise<HookReply> {
    return this.post('SessionEnd', { reason: 'prompt_input_exit' });
  }
}
