/**
 * The host interface every launched agent is driven through, whatever its wire protocol (ACP via
 * the ACP SDK, or the Codex app-server's own JSON-RPC). Updates are ACP `SessionUpdate` objects
 * (the Codex driver translates its items into the same shapes), so one mapping serves both.
 */

/** An ACP `session/update` `update` object (`sessionUpdate` discriminant), verbatim from the agent. */
export type AgentUpdate = Readonly<Record<string, unknown>> & { readonly sessionUpdate: string };

/** An ACP permission option, verbatim. */
export interface PermissionOption {
  readonly optionId: string;
  readonly name: string;
  readonly kind: string;
  readonly [extra: string]: unknown;
}

/** An ACP `session/request_permission` request's params, verbatim. */
export interface PermissionAsk {
  readonly toolCall: Readonly<Record<string, unknown>> & { readonly toolCallId?: string; readonly title?: string | null };
  readonly options: readonly PermissionOption[];
  readonly [extra: string]: unknown;
}

/** What the client answers (the ACP `RequestPermissionOutcome`). */
export type PermissionOutcome = { readonly outcome: 'selected'; readonly optionId: string } | { readonly outcome: 'cancelled' };

/** How a prompt turn ended (the ACP `PromptResponse`, verbatim plus normalized usage). */
export interface TurnEnd {
  readonly stopReason: string;
  readonly usage?: { readonly inputTokens?: number; readonly outputTokens?: number; readonly totalTokens?: number } | null;
  readonly raw: Readonly<Record<string, unknown>>;
}

/** Why the agent process went away. */
export interface AgentExit {
  readonly code: number | null;
  readonly signal: string | null;
  /** One line for the session's end reason, e.g. `agent exited with code 1`. */
  readonly reason: string;
}

/** The host's callbacks. */
export interface DriverEvents {
  update(update: AgentUpdate): void;
  permission(ask: PermissionAsk): Promise<PermissionOutcome>;
  exit(exit: AgentExit): void;
  /** A request to the agent got no answer within the bound (the agent is hung). */
  hung(method: string, afterMs: number): void;
  /** Any message arrived from the agent (the turn watchdog's sign of life). */
  activity?(): void;
}

/** The result of opening a session. */
export interface OpenedSession {
  readonly session: string;
  /** The agent's initialize answer, verbatim. */
  readonly initialize: Readonly<Record<string, unknown>>;
  readonly agentInfo: Readonly<Record<string, unknown>> | null;
  /** True when the agent advertised loadSession (ACP) / thread resume (Codex): a later restart can resume. */
  readonly resumable: boolean;
}

/** One running agent process with one session. */
export interface AgentDriver {
  readonly pid: number | null;
  /** Resolves once the agent process is gone. */
  readonly exited: Promise<AgentExit>;
  /** initialize, then session/new (or session/load of `resume`) in `cwd`. */
  open(cwd: string, resume?: string): Promise<OpenedSession>;
  /** One prompt turn; resolves when the agent settles it. */
  prompt(text: string): Promise<TurnEnd>;
  /** Asks the agent to stop the running turn (ACP session/cancel, Codex turn/interrupt). */
  cancel(): Promise<void>;
  /** Ends the agent: close stdin, then SIGTERM, then SIGKILL, each after `boundMs`. Resolves once it is gone. */
  close(boundMs: number): Promise<void>;
  /** Measurement tap: called right after a prompt's line was written to the agent's stdin (the line). */
  onPromptWritten?: ((line: string) => void) | null;
}
