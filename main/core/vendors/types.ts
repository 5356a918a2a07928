/**
 * The vendor adapter contract: everything the hook routes, the steering engine and the permission
 * loop need to know about one vendor, so no caller ever branches on the vendor id.
 */
import type { Capture, Severity } from '../../../common/aep/envelope';
import type { Result } from '../../../common/result';
import type { VendorId, VendorProfile } from '../../../common/vendors';

/** A hook payload parsed into the facts every vendor shares; vendor-only fields stay in `payload`. */
export interface HookCall {
  readonly vendor: VendorId;
  /** The vendor's own name for the hook moment, verbatim (`PreToolUse`, `pre_llm_call`). */
  readonly moment: string;
  /** The vendor session id, used verbatim as the AEP `session`. */
  readonly session: string;
  /**
   * Set when `session` came from a key that is not always a session id (Hermes approval hooks carry
   * only `session_key`): use it only if that session is already known, else the `unknown` lane.
   */
  readonly sessionUnconfirmed?: boolean;
  /** The vendor's own turn id when it has one (Codex `turn_id`, Hermes `extra.turn_id`). */
  readonly turn?: string;
  readonly cwd?: string;
  /** The tool the hook is about, when it is a tool or permission moment. */
  readonly tool?: HookTool;
  /** The user prompt text (content: never emitted above its capture gate). */
  readonly prompt?: string;
  /** Set when the hook fired inside a subagent: context returned there reaches the subagent only. */
  readonly agentId?: string;
  /** The whole payload object, for the vendor module's own fields. */
  readonly payload: Readonly<Record<string, unknown>>;
}

/** Tool facts carried by a hook call. */
export interface HookTool {
  readonly name: string;
  readonly callId?: string;
  readonly input?: unknown;
}

/** Why a payload could not be parsed. */
export type HookParseErrorCode = 'invalid-payload';

/** Capture ceilings applied by the mappings (AEP-0003 §9.1): a default plus the `attention.*` override. */
export interface CapturePolicy {
  readonly default: Capture;
  readonly attention: Capture;
}

/** The recommended posture: metadata everywhere, attention prompts readable after redaction. */
export const DEFAULT_CAPTURE_POLICY: CapturePolicy = { default: 'metadata', attention: 'redacted' };

/** What a mapping needs from its caller; passing these in keeps the mappings pure and testable. */
export interface MappingContext {
  readonly capture: CapturePolicy;
  /** The AEP redaction pipeline (main/core/aep `redact` with the operator's options). */
  readonly redact: (text: string) => string;
  /** Mints a run id for vendors without a turn id (a ULID in production). */
  readonly newRunId: () => string;
  /**
   * Whether this vendor's permission loop is on: permission cards then declare `respond_via:
   * ["control"]`; off, they declare `["oob"]` so no consumer offers an answer the daemon must refuse.
   */
  readonly permissionLoop: boolean;
}

/** The small per-session state a mapping carries from one hook call to the next. */
export interface MappingState {
  /** The open run (vendor turn id or synthesized), or null between runs. */
  readonly run: string | null;
  /** Tool calls requested and not yet settled: call id → tool name, oldest first (never changed: a mapping copies it). */
  readonly openTools: ReadonlyMap<string, string>;
}

/**
 * Open tool calls as a state holds them: call id → tool name, oldest first, never changed (a
 * mapping builds a new one). Two short arrays: a new table is one array copy, where a `Map` is
 * built again entry by entry through its constructor's iteration (a session whose settling hooks
 * came before their requests holds the bound of them, and every later request copied them all).
 */
export class OpenTools implements ReadonlyMap<string, string> {
  static readonly NONE = new OpenTools([], []);

  private constructor(
    private readonly ids: readonly string[],
    private readonly names: readonly string[],
  ) {}

  /** The table of any read-only map (a state built elsewhere, as tests do). */
  static of(tools: ReadonlyMap<string, string>): OpenTools {
    return tools instanceof OpenTools ? tools : new OpenTools([...tools.keys()], [...tools.values()]);
  }

  get size(): number {
    return this.ids.length;
  }

  has(id: string): boolean {
    return this.ids.includes(id);
  }

  get(id: string): string | undefined {
    const at = this.ids.indexOf(id);
    return at === -1 ? undefined : this.names[at];
  }

  /** With `id` open as `name`: in its place when it is open already, else newest, the oldest dropped past `max`. */
  with(id: string, name: string, max: number): OpenTools {
    const at = this.ids.indexOf(id);
    if (at !== -1) {
      if (this.names[at] === name) return this;
      const names = this.names.slice();
      names[at] = name;
      return new OpenTools(this.ids, names);
    }
    const drop = Math.max(0, this.ids.length - (max - 1));
    const ids = this.ids.slice(drop);
    const names = this.names.slice(drop);
    ids.push(id);
    names.push(name);
    return new OpenTools(ids, names);
  }

  /** Without `id` (this table when it is not open). */
  without(id: string): OpenTools {
    const at = this.ids.indexOf(id);
    if (at === -1) return this;
    if (this.ids.length === 1) return OpenTools.NONE;
    return new OpenTools(
      this.ids.filter((_, i) => i !== at),
      this.names.filter((_, i) => i !== at),
    );
  }

  keys(): MapIterator<string> {
    return this.ids.values();
  }

  values(): MapIterator<string> {
    return this.names.values();
  }

  *entries(): MapIterator<[string, string]> {
    for (let i = 0; i < this.ids.length; i++) yield [this.ids[i], this.names[i]];
  }

  [Symbol.iterator](): MapIterator<[string, string]> {
    return this.entries();
  }

  forEach(callback: (value: string, key: string, map: ReadonlyMap<string, string>) => void, thisArg?: unknown): void {
    for (let i = 0; i < this.ids.length; i++) callback.call(thisArg, this.names[i], this.ids[i], this);
  }
}

/** The table of a state with no open tool call (shared: no mapping changes a state's table). */
export const NO_OPEN_TOOLS: ReadonlyMap<string, string> = OpenTools.NONE;

/** The state of a session before its first hook call. */
export const INITIAL_MAPPING_STATE: MappingState = { run: null, openTools: NO_OPEN_TOOLS };

/** Names an earlier event by type and correlation key; the emitter resolves it to a `cause` id. */
export interface CauseHint {
  readonly type: string;
  readonly key: string;
}

/**
 * One AEP event without its envelope identity: the emitter adds id, time, source, agent, session,
 * seq and epoch. `key` is this event's correlation key (tool call id, run id, attention subject),
 * recorded by the emitter so later events can name it in `causeHint`.
 */
export interface MappedEvent {
  readonly type: string;
  readonly subject?: string;
  readonly run?: string;
  readonly step?: string;
  readonly severity?: Severity;
  readonly capture: Capture;
  /** The payload, gated to `capture`; absent at ceiling `none`, where an event carries no payload at all. */
  readonly data?: Readonly<Record<string, unknown>>;
  readonly key?: string;
  readonly causeHint?: CauseHint;
  /**
   * Set on attention followers (answered, resolved, timeout): AEP-0002 §7.1 wants their `subject` to be
   * the request's event id, so the emitter replaces `subject` with the id `causeHint` resolves to,
   * keeping the mapped subject when it does not resolve.
   */
  readonly subjectFromCause?: boolean;
}

/** The events one hook call maps to, and the session's mapping state afterwards. */
export interface MappingOutcome {
  readonly events: readonly MappedEvent[];
  readonly state: MappingState;
}

/** A JSON reply body for the vendor's hook (`{}` when there is nothing to say). */
export type HookReply = Readonly<Record<string, unknown>>;

/** Why a reply could not be built. */
export type ReplyErrorCode = 'not-a-delivery-moment' | 'not-a-permission-moment' | 'invalid-answer';

/** An operator's answer to an attention request (AEP-0002 §5.3, AEP-0006, AEP-0008). */
export interface AttentionAnswer {
  readonly option?: string;
  readonly text?: string;
  readonly values?: Readonly<Record<string, unknown>>;
}

/** A held hook's decision: the reply for the vendor and the `attention.answered` data to emit. */
export interface PermissionDecision {
  readonly reply: HookReply;
  /** `attention.answered` data stating what was applied, already capture-gated. */
  readonly answered: Readonly<Record<string, unknown>>;
}

/** Everything that differs between vendors, behind one interface. */
export interface VendorAdapter {
  readonly id: VendorId;
  readonly profile: VendorProfile;
  /** Parses a raw hook payload; a non-object, a missing moment name or session id is an error. */
  parse(payload: unknown): Result<HookCall, HookParseErrorCode>;
  /** Maps one hook call to envelope-less AEP events (Annex A) and the session's next state. */
  map(call: HookCall, state: MappingState, context: MappingContext): MappingOutcome;
  /**
   * True when this call's reply may carry steering: a delivery moment, never held, main agent only.
   * `loopOn` is whether the session's permission loop is on (a gated moment is held only then).
   */
  acceptsSteering(call: HookCall, loopOn?: boolean): boolean;
  /** True when this call's reply is a held decision (permission, form): never mix steering into it. */
  isHeld(call: HookCall, loopOn?: boolean): boolean;
  /** The moments `isHeld` answers true for (the installed hook shim's long-deadline table is generated from it). */
  readonly heldMoments: readonly string[];
  /**
   * What a command hook prints for `emptyReply()`: its JSON (`{}`) for most vendors, nothing at
   * all for Codex (strict output schemas; empty stdout is the no-op). The hook shim's table.
   */
  readonly emptyCommandOutput: string;
  /** True when this call ends the session (queued instructions drop with `session-ended`). */
  endsSession(call: HookCall): boolean;
  /** The reply that says nothing (the vendor proceeds, or shows its own dialog on a held moment). */
  emptyReply(): HookReply;
  /** The reply carrying steering text for a delivery moment; the caller keeps it within the cap. */
  steeringReply(call: HookCall, text: string, loopOn?: boolean): Result<HookReply, ReplyErrorCode>;
  /** The decision reply for an answerable held moment, or why the answer cannot be applied. */
  permissionReply(
    call: HookCall,
    answer: AttentionAnswer,
    context: MappingContext,
  ): Result<PermissionDecision, ReplyErrorCode>;
}
