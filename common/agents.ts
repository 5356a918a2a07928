/**
 * Launched agents (the ACP / Codex app-server host in main/core/launched): the catalogue, launch
 * requests and the launched-session record as /api and the console see them, and the user-plane
 * verbs a launched session declares.
 */
import type { SteerSupport } from './agent-inputs';

/** The agents the companion can launch. Never an arbitrary command: only these, by id. */
export const AGENT_IDS = ['claude-code', 'codex', 'qwen-code', 'gemini-cli'] as const;
export type AgentId = (typeof AGENT_IDS)[number];

export const isAgentId = (value: unknown): value is AgentId =>
  typeof value === 'string' && (AGENT_IDS as readonly string[]).includes(value);

/** The wire protocol the host speaks with an agent. */
export type AgentProtocol = 'acp' | 'codex-app-server';

/** A bridge package the companion fetches on demand into its data directory (never bundled). */
export interface AgentBridge {
  readonly package: string;
  readonly version: string;
  /** `absent`: not fetched yet (fetched at the first launch); `fetching`: in progress; `ready`; `failed`. */
  readonly state: 'absent' | 'fetching' | 'ready' | 'failed';
  /** The last lines of the fetch log (npm's output), newest last. */
  readonly log: readonly string[];
  /** The failure, one line (e.g. offline), when `state` is `failed`. */
  readonly error: string | null;
}

/** One catalogue entry as `GET /api/agents` serves it. */
export interface AgentCatalogueEntry {
  readonly id: AgentId;
  readonly name: string;
  readonly protocol: AgentProtocol;
  /** True when the agent can be launched now (its CLI found, or its bridge fetchable). */
  readonly installed: boolean;
  /** The command that would be spawned (after any `agents.<id>.command` override), or null when missing. */
  readonly command: readonly string[] | null;
  /** True when the command comes from the `agents.<id>.command` setting. */
  readonly overridden: boolean;
  /** The vendor CLI found on PATH (absolute path), or null. */
  readonly cliPath: string | null;
  /** How to get the agent when it is missing (one line, e.g. `npm install -g @openai/codex`). */
  readonly howToGet: string;
  readonly bridge: AgentBridge | null;
}

/** `POST /api/launch` body. `cwd` must be an existing directory. */
export interface LaunchRequest {
  readonly agent: AgentId;
  readonly cwd: string;
  /** The first prompt, sent as soon as the session exists (the call does not wait for the turn). */
  readonly prompt?: string;
}

/** `POST /api/launch` answer: the session id is the agent's own (ACP sessionId, Codex thread id), verbatim. */
export interface LaunchResult {
  readonly session: string;
  readonly agent: AgentId;
  /** The agent's `initialize` answer, verbatim (capabilities, agentInfo, `_meta`). */
  readonly capabilities: Readonly<Record<string, unknown>>;
}

/** The lifecycle of a launched session. */
export type LaunchedState = 'starting' | 'idle' | 'generating' | 'ended' | 'resumable';

/** One launched session (the `launched_sessions` table plus live state), `GET /api/launched`. */
export interface LaunchedSessionInfo {
  readonly session: string;
  readonly agent: AgentId;
  /** The AEP source of the session's events. */
  readonly source: string;
  readonly cwd: string;
  readonly state: LaunchedState;
  readonly pid: number | null;
  /** What the agent reported about itself (agentInfo / userAgent), information only. */
  readonly agentInfo: Readonly<Record<string, unknown>> | null;
  readonly capabilities: Readonly<Record<string, unknown>>;
  /** Inputs waiting for the current turn to end. */
  readonly queued: number;
  /** Mid-turn steering support and the badge, derived at serialization (never stored); absent when not computed. */
  readonly steer?: SteerSupport;
  readonly startedAt: string;
  readonly endedAt: string | null;
  readonly endReason: string | null;
}

/** How an input is delivered (common/agent-inputs.ts `Delivery`): `now` (steer where it can), `queue` (default), `stop`. */
export type InputDelivery = 'now' | 'queue' | 'stop';

/** The user-plane input verb of a launched session (distinct from the hook-path `instruct`). */
export const sendInputType = (agent: string): string => `x.${agent}.control.send_input`;
/** Emitted (cause = the command) when an input waits because the session is generating. */
export const inputQueuedType = (agent: string): string => `x.${agent}.input.queued`;
/** Emitted (cause = the command) when an input is written to the agent as a prompt. */
export const inputSentType = (agent: string): string => `x.${agent}.input.sent`;
/** Emitted (cause = the command) when a queued input is dropped (session ended, kill switch, cancel). */
export const inputDroppedType = (agent: string): string => `x.${agent}.input.dropped`;

/**
 * Pushed (no cause) whenever a launched session's state changes: the coarse `state`, the end
 * `reason` once ended or resumable, and, where mid-turn steering runs, `supports_steering`, `mode`,
 * `mechanism`, the capability `reason` and the per-session `steer` state (none, offered, sent,
 * folded, deferred). Consoles keep the session's state from it instead of polling.
 */
export const sessionStateType = (agent: string): string => `x.${agent}.session.state`;

/** Payload of `x.{agent}.control.send_input`. */
export interface SendInputData {
  readonly text: string;
  readonly delivery?: InputDelivery;
}

/** Longest input text accepted. */
export const MAX_INPUT_CHARS = 100_000;
