/**
 * What the Cline hub adds to the hook-fed session, and only that (hooks already give runs, tools,
 * errors and shutdown): approvals (`approval.requested` / `.resolved` → attention cards), pending
 * prompts, the hub's own abort fact (closing a run the hooks left open), and the settlement of inputs
 * sent through the hub. Keeps the per-session facts the control verbs need (interactive or a plain
 * `cline "prompt"` run, which approvals are open, which inputs wait in the hub's pending list).
 */
import {
  inputSettledType,
  type Delivery,
  type InputOutcome,
} from '../../../../../common/agent-inputs';
import type { AepEvent } from '../../../../../common/aep/envelope';
import type { VendorEmitter } from '../../../steering/vendor-emitter';
import { mapped } from '../../event-builders';
import { INITIAL_MAPPING_STATE, type MappingContext } from '../../types';
import type { HubEvent } from './hub-client';

/** What became of a sent input: the data of its `x.cline.input.settled`. */
export interface Settlement {
  readonly outcome: InputOutcome;
  readonly delivery: Delivery;
  readonly reason: string;
  readonly run?: string;
}

/**
 * An input sent through the hub and not yet settled. It is listed from the moment it is sent: the
 * hub announces and can even submit it before its reply to `session.send_input` is read (the
 * recorded pending list comes first, and a busy daemon reads the reply together with the events
 * after it). Until the command's ack is out (`accepted`), a settlement is only kept (`early`), so
 * the record never shows an input settled before it was accepted.
 */
export interface SentInput {
  readonly commandId: string;
  readonly text: string;
  readonly delivery: Delivery;
  /** The hub's pending-prompt id, once its pending list showed our text. */
  pendingId: string | null;
  /** The command's ack is out: a settlement is emitted at once. */
  accepted: boolean;
  /** A settlement reached before the ack, emitted after it. */
  early: Settlement | null;
}

/** What the tap knows about one hub session. */
export interface HubSession {
  /** From the hub snapshot: a hub-native (interactive) session runs queued input; a plain CLI run drops it. */
  interactive: boolean | null;
  readonly approvals: Map<string, { eventId: string; settled: boolean }>;
  readonly inputs: SentInput[];
  pendingCount: number;
  /** The run was aborted: the CLI's own `session_shutdown` hook ends the session then. */
  aborted: boolean;
}

export interface HubTapDeps {
  readonly emitter: VendorEmitter;
  readonly context: () => MappingContext;
  /** True when the session is a live Cline session of ours (its hooks were seen, not ended). */
  readonly tracked: (session: string) => boolean;
  /** Whether approvals can be answered from the companion now (the verb is declared). */
  readonly answerable: (session: string) => boolean;
  /** A session became known to the hub (declarations may change). */
  readonly onKnown: (session: string) => void;
  readonly send: (events: AepEvent[]) => void;
  /** The session is over by the hub's account (hooks never say so for a plain run). */
  readonly ended: (session: string) => void;
}

/** Hub sessions remembered at most. */
const MAX_SESSIONS = 1_000;

const snapshotOf = (payload: Readonly<Record<string, unknown>>): Record<string, unknown> | null => {
  const s = payload.snapshot ?? payload.session;
  return typeof s === 'object' && s !== null ? (s as Record<string, unknown>) : null;
};

/** Consumes hub events; owns the per-session hub facts. */
export class HubTap {
  private readonly sessions = new Map<string, HubSession>();

  constructor(private readonly deps: HubTapDeps) {}

  /** The hub facts of a session, or undefined when the hub never named it. */
  session(id: string): HubSession | undefined {
    return this.sessions.get(id);
  }

  /** Records what a snapshot (from an event or a `session.get` reply) says. */
  learn(id: string, snapshot: Record<string, unknown> | null): HubSession {
    let s = this.sessions.get(id);
    const fresh = s === undefined;
    if (!s) {
      this.sessions.set(
        id,
        (s = {
          interactive: null,
          approvals: new Map(),
          inputs: [],
          pendingCount: 0,
          aborted: false,
        }),
      );
      // Bounded: the oldest sessions the hub named go first.
      if (this.sessions.size > MAX_SESSIONS)
        this.sessions.delete(this.sessions.keys().next().value as string);
    }
    if (snapshot && typeof snapshot.interactive === 'boolean') s.interactive = snapshot.interactive;
    if (fresh) this.deps.onKnown(id);
    return s;
  }

  /** Forgets a session (it ended). */
  forget(id: string): void {
    this.sessions.delete(id);
  }

  /** One hub event. */
  handle(e: HubEvent): void {
    const id = e.sessionId;
    if (id === undefined) return;
    // The hub often speaks of a session before its first hook arrives: its facts are kept either way.
    const s = this.learn(id, snapshotOf(e.payload));
    if (!this.deps.tracked(id)) return;
    switch (e.event) {
      case 'approval.requested':
        return this.approvalRequested(id, s, e.payload);
      case 'approval.resolved':
        return this.approvalResolved(id, s, e.payload);
      case 'session.pending_prompts':
        return this.pendingPrompts(id, s, e.payload);
      case 'session.pending_prompt_submitted': {
        const prompt = (e.payload.prompt ?? {}) as Record<string, unknown>;
        const input =
          s.inputs.find((i) => i.pendingId === prompt.id) ??
          s.inputs.find((i) => i.pendingId === null && i.text === prompt.prompt);
        if (input)
          this.settle(
            id,
            s,
            input,
            input.delivery === 'queue' ? 'prompted' : 'steered',
            'the agent took it into its next model request',
          );
        return;
      }
      case 'run.aborted':
        return this.runEnded(id, s, 'run.cancelled');
      case 'session.detached':
        // A plain `cline "prompt"` run ends when its CLI detaches; no hook says so. An aborted one
        // ends at its session_shutdown hook instead, and a run still open is left to its hooks.
        if (s.interactive !== false || s.aborted || this.deps.emitter.mappingState(id).run !== null)
          return;
        for (const input of [...s.inputs])
          this.settle(id, s, input, 'dropped', 'the session ended');
        this.deps.ended(id);
        this.forget(id);
        return;
      case 'run.completed':
      case 'run.failed':
        // Hooks report these (agent_end, agent_error); the tap only settles what waited on the run.
        for (const input of [...s.inputs].filter((i) => i.delivery !== 'queue'))
          this.settle(
            id,
            s,
            input,
            e.event === 'run.failed' ? 'failed' : 'dropped',
            'the run ended before the hub submitted it',
          );
        return;
    }
  }

  /**
   * Emits the outcome of a sent input (cause = its command) and forgets it; before the command's
   * ack is out, the outcome is kept for `accepted` instead.
   */
  settle(id: string, s: HubSession, input: SentInput, outcome: InputOutcome, reason: string): void {
    const at = s.inputs.indexOf(input);
    if (at < 0) return;
    s.inputs.splice(at, 1);
    const run = this.deps.emitter.mappingState(id).run ?? undefined;
    const data: Settlement = { outcome, delivery: input.delivery, reason, ...(run ? { run } : {}) };
    if (!input.accepted) {
      input.early = data;
      return;
    }
    this.deps.send(this.settlementEvents(id, input, data));
  }

  /** Lists an input about to be sent (its ack not out yet). */
  sending(id: string, commandId: string, text: string, delivery: Delivery): SentInput {
    const input: SentInput = {
      commandId,
      text,
      delivery,
      pendingId: null,
      accepted: false,
      early: null,
    };
    this.learn(id, null).inputs.push(input);
    return input;
  }

  /** Forgets an input the hub did not take (its command was refused): nothing is settled. */
  withdraw(id: string, input: SentInput): void {
    const inputs = this.sessions.get(id)?.inputs;
    const at = inputs?.indexOf(input) ?? -1;
    if (at >= 0) inputs!.splice(at, 1);
  }

  /** The command's ack is out: returns the settlement reached before it, if any, to follow the ack. */
  accepted(id: string, input: SentInput): AepEvent[] {
    input.accepted = true;
    return input.early ? this.settlementEvents(id, input, input.early) : [];
  }

  private settlementEvents(id: string, input: SentInput, data: Settlement): AepEvent[] {
    return this.deps.emitter.stamp(id, [
      {
        type: inputSettledType('cline'),
        cause: input.commandId,
        capture: 'metadata',
        data: { ...data },
      },
    ]);
  }

  /**
   * The run is over by the hub's account: if the hooks have not closed it (their shutdown comes later,
   * or never without hooks), it is closed here once; the later hook then only ends the session.
   */
  runEnded(
    id: string,
    s: HubSession,
    type: 'run.cancelled',
    cause?: string,
    by: 'user' | 'control' = 'user',
  ): void {
    const state = this.deps.emitter.mappingState(id);
    s.aborted = true;
    for (const input of [...s.inputs].filter((i) => i.delivery !== 'queue'))
      this.settle(id, s, input, 'cancelled', 'the run was aborted before the hub submitted it');
    if (state.run === null) return;
    const run = state.run;
    this.deps.emitter.setMappingState(id, INITIAL_MAPPING_STATE);
    const context = this.deps.context();
    const event = mapped(
      type,
      context,
      { by },
      { run, key: run, causeHint: cause ? undefined : { type: 'run.started', key: run } },
    );
    if (cause !== undefined) {
      const [stamped] = this.deps.emitter.stamp(id, [
        { type, run, cause, capture: event.capture, data: event.data },
      ]);
      this.deps.send([stamped]);
      return;
    }
    this.deps.send(this.deps.emitter.stampMapped(id, [event]));
  }

  private approvalRequested(id: string, s: HubSession, p: Readonly<Record<string, unknown>>): void {
    const approvalId = typeof p.approvalId === 'string' ? p.approvalId : undefined;
    if (approvalId === undefined || s.approvals.has(approvalId)) return;
    const context = this.deps.context();
    const tool = typeof p.toolName === 'string' ? p.toolName : 'a tool';
    let prompt = `cline requests permission: ${tool}`;
    if (context.capture.attention !== 'none' && context.capture.attention !== 'metadata') {
      const input = typeof p.inputJson === 'string' ? p.inputJson : '';
      prompt = context.redact(`Permission requested: ${tool}${input === '' ? '' : ` — ${input}`}`);
    }
    const data = {
      kind: 'permission',
      prompt,
      options: [
        { id: 'allow', label: 'Allow' },
        { id: 'deny', label: 'Deny' },
      ],
      respond_via: [this.deps.answerable(id) ? 'control' : 'oob'],
    };
    const run = this.deps.emitter.mappingState(id).run;
    const [event] = this.deps.emitter.stampMapped(id, [
      mapped('attention.requested', context, data, { subject: approvalId, run, key: approvalId }),
    ]);
    s.approvals.set(approvalId, { eventId: event.id, settled: false });
    this.deps.send([event]);
  }

  private approvalResolved(id: string, s: HubSession, p: Readonly<Record<string, unknown>>): void {
    const approvalId = typeof p.approvalId === 'string' ? p.approvalId : '';
    const open = s.approvals.get(approvalId);
    if (!open || open.settled) return;
    open.settled = true;
    // Answered elsewhere (the CLI's own prompt, another hub client): observed, not applied by us.
    const answer = { option: p.approved === true ? 'allow' : 'deny' };
    const run = this.deps.emitter.mappingState(id).run;
    const event = mapped(
      'attention.answered',
      this.deps.context(),
      { answer, via: 'oob' },
      { subject: approvalId, run, causeHint: { type: 'attention.requested', key: approvalId } },
    );
    this.deps.send(this.deps.emitter.stampMapped(id, [event]));
  }

  private pendingPrompts(id: string, s: HubSession, p: Readonly<Record<string, unknown>>): void {
    const prompts = Array.isArray(p.prompts) ? (p.prompts as Record<string, unknown>[]) : [];
    for (const entry of prompts) {
      if (s.inputs.some((i) => i.pendingId === entry.id)) continue;
      const input = s.inputs.find((i) => i.pendingId === null && i.text === entry.prompt);
      if (input && typeof entry.id === 'string') input.pendingId = entry.id;
    }
    if (prompts.length === s.pendingCount) return;
    s.pendingCount = prompts.length;
    const run = this.deps.emitter.mappingState(id).run;
    const data = {
      pending: prompts.length,
      steer: prompts.filter((x) => x.delivery === 'steer').length,
    };
    this.deps.send(
      this.deps.emitter.stampMapped(id, [
        mapped('x.cline.prompts.pending', this.deps.context(), data, { run }),
      ]),
    );
  }
}
