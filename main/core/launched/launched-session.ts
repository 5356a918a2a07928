/**
 * One launched session: its driver (the agent process), its place in the agent's emitter, the
 * ACP→AEP mapping state, its turn controller (every input goes through it), the open permission
 * requests and the cancel in flight. Everything it reports goes out in order on one send chain.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { AgentId, LaunchedState } from '../../../common/agents';
import { inputDroppedType, inputQueuedType, inputSentType, sessionStateType } from '../../../common/agents';
import { applyCeiling } from '../aep/apply-ceiling';
import { gateFor } from '../vendors/capture-gate';
import { mapped } from '../vendors/event-builders';
import { compact } from '../vendors/payload-fields';
import type { MappedEvent, MappingContext } from '../vendors/types';
import type { Logger } from '../logger';
import { idleOutput, mapUpdate, newTurnMappingState, permissionRequested, runEnded, runFailed, runStarted } from './acp-mapping';
import type { AgentEmitter } from './agent-emitter';
import type { AgentDriver, AgentExit, AgentUpdate, PermissionAsk, PermissionOutcome, TurnEnd } from './driver';
import { TurnController, type TurnInput } from './turn-controller';

/** Quiet time after which text that arrived with no prompt in flight is reported. */
const IDLE_FLUSH_MS = 500;

/** Open permission request: the request event id → how to answer the agent. */
interface OpenPermission {
  readonly requestId: string;
  readonly ask: PermissionAsk;
  readonly requestedAtMs: number;
  readonly answer: (outcome: PermissionOutcome) => void;
  readonly cancelTimer: () => void;
}

/** A tool call a run started and never settled. */
export interface OpenToolCall {
  readonly callId: string;
  readonly name: string;
  /** The id of its `tool.requested` (the cause of the settlement), when known; else the emitter's cause hint resolves it. */
  readonly requestedId?: string;
}

/**
 * `tool.failed` settling a tool call its run left open when the run itself fails (the agent died,
 * the daemon stopped): `error.type` is the run's failure reason, cause-linked to the request.
 */
export function toolAbandoned(call: OpenToolCall, run: string, reason: string, message: string, context: MappingContext): MappedEvent & { cause?: string } {
  const text = gateFor('tool.failed', context).text(message);
  const event = mapped('tool.failed', context, { tool: { name: call.name, call_id: call.callId }, error: compact({ type: reason, message: text }) }, {
    subject: call.callId,
    run,
    key: call.callId,
    causeHint: { type: 'tool.requested', key: call.callId },
  });
  return call.requestedId === undefined ? event : { ...event, cause: call.requestedId };
}

/** What a session is built from. */
export interface LaunchedSessionDeps {
  readonly agent: AgentId;
  readonly session: string;
  readonly driver: AgentDriver;
  readonly emitter: AgentEmitter;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly newId: () => string;
  /** The capture policy and redaction in force now (read per event). */
  readonly mapping: () => MappingContext;
  readonly holdMs: () => number;
  /** A running turn silent this long is reported hung. */
  readonly turnSilenceMs: number;
  readonly schedule: (ms: number, fire: () => void) => () => void;
  /** Persists a state change (launched_sessions). */
  readonly onState: (state: LaunchedState, reason?: string) => void;
  /** The agent advertised it can load this session again (ACP loadSession, Codex thread resume). */
  readonly resumable?: boolean;
  /**
   * The session registry's verdict on a tool event this session reports (sessions/registry.ts
   * `admitOwn`): false when another source of the session already reported the same tool fact.
   */
  readonly admitOwn?: (event: MappedEvent) => boolean;
}

/** A launched session. */
export class LaunchedSession {
  readonly controller: TurnController;
  private readonly turn = newTurnMappingState();
  private readonly permissions = new Map<string, OpenPermission>();
  /**
   * Tool calls requested and not yet settled: call id → tool name and the run that requested it.
   * A run ending (or handing its turn to a steer) leaves them open: background work keeps reporting.
   */
  private readonly openTools = new Map<string, { name: string; run: string | null }>();
  private cancelIdleFlush: () => void = () => undefined;
  private chain: Promise<void> = Promise.resolve();
  private cancelCause: string | null = null;
  private turnStartedAtMs = 0;
  private lastActivityMs = 0;
  private cancelWatchdog: () => void = () => undefined;
  private runs = 0;
  private readonly startedAtMs: number;
  state: LaunchedState = 'idle';
  endReason: string | null = null;
  /** How the last turn ended (`cancelled` when the agent settled it cancelled). */
  lastEnd: 'finished' | 'cancelled' | 'failed' | null = null;
  /** Facts added to the pushed session state (mid-turn steering installs its capability and steer state). */
  stateFacts: (() => Readonly<Record<string, unknown>>) | null = null;
  /** Hears every coarse state change (after it is recorded). */
  onStateChange: ((state: LaunchedState) => void) | null = null;
  private publishedState = '';

  constructor(private readonly deps: LaunchedSessionDeps) {
    this.startedAtMs = deps.clock();
    this.controller = new TurnController({
      startTurn: (input) => this.startTurn(input),
      queued: (input, position) =>
        this.emit([{ type: inputQueuedType(deps.agent), capture: 'metadata', data: { position, delivery: input.delivery }, cause: input.id }]),
      dropped: (input, reason) =>
        this.emit([{ type: inputDroppedType(deps.agent), capture: 'metadata', data: { reason, queued_ms: Math.max(0, deps.clock() - input.submittedAtMs) }, cause: input.id }]),
    });
  }

  get agent(): AgentId {
    return this.deps.agent;
  }

  get session(): string {
    return this.deps.session;
  }

  get driver(): AgentDriver {
    return this.deps.driver;
  }

  /** The open run (the running turn), or null. */
  get currentRun(): string | null {
    return this.turn.run;
  }

  get ended(): boolean {
    return this.state === 'ended' || this.state === 'resumable';
  }

  /** Emits `session.started` (client = the agent as it reported itself). */
  started(agentInfo: Readonly<Record<string, unknown>> | null): Promise<void> {
    const name = typeof agentInfo?.['name'] === 'string' ? (agentInfo['name'] as string) : this.deps.agent;
    const version = typeof agentInfo?.['version'] === 'string' ? (agentInfo['version'] as string) : undefined;
    const started = this.emit([{ type: 'session.started', capture: 'metadata', data: { client: { name, ...(version ? { version } : {}) }, trigger: 'launch' } }]);
    this.publishState();
    return started;
  }

  /** Hands one session/update to the mapping. */
  update(update: AgentUpdate): void {
    if (this.ended) return;
    const context = this.deps.mapping();
    // Text with no prompt in flight is its own event, once the agent moves on or goes quiet.
    const before = update.sessionUpdate === 'agent_message_chunk' ? null : idleOutput(this.turn, context);
    const mappedEvents = mapUpdate(update, this.turn, context);
    const admit = this.deps.admitOwn;
    const events = admit === undefined ? mappedEvents : mappedEvents.filter((e) => admit(e));
    for (const e of events) {
      if (e.subject === undefined) continue;
      if (e.type === 'tool.requested') this.openTools.set(e.subject, { name: this.turn.tools.get(e.subject)?.name ?? 'tool', run: e.run ?? null });
      else if (e.type === 'tool.completed' || e.type === 'tool.failed' || e.type === 'tool.denied') this.openTools.delete(e.subject);
    }
    const all = before ? [before, ...events] : events;
    if (all.length > 0) void this.emitMapped(all);
    if (this.turn.idleText !== '') {
      this.cancelIdleFlush();
      this.cancelIdleFlush = this.deps.schedule(IDLE_FLUSH_MS, () => this.flushIdle());
    }
  }

  /** Emits the text that arrived with no prompt in flight, if any. */
  private flushIdle(): void {
    this.cancelIdleFlush();
    const event = idleOutput(this.turn, this.deps.mapping());
    if (event) void this.emitMapped([event]);
  }

  /** A permission request from the agent: an answerable attention card until answered, timed out, or cancelled. */
  permission(ask: PermissionAsk): Promise<PermissionOutcome> {
    if (this.ended) return Promise.resolve({ outcome: 'cancelled' });
    return new Promise<PermissionOutcome>((resolve) => {
      const holdMs = this.deps.holdMs();
      // The moment the hold gives up rides on the card as `expires_at` (consoles count down to it).
      const requested = permissionRequested(ask, this.deps.mapping(), this.turn.run);
      const expiresAt = new Date(this.deps.clock() + holdMs).toISOString();
      const withDeadline = requested.data === undefined ? requested : { ...requested, data: { ...requested.data, expires_at: expiresAt } };
      const [card] = this.deps.emitter.stampMapped(this.session, [withDeadline]);
      const entry: OpenPermission = {
        requestId: card.id,
        ask,
        requestedAtMs: this.deps.clock(),
        answer: resolve,
        cancelTimer: this.deps.schedule(holdMs, () => {
          if (!this.permissions.delete(card.id)) return;
          void this.emit([{ type: 'attention.timeout', subject: card.id, cause: card.id, data: { after_ms: holdMs } }]);
          resolve({ outcome: 'cancelled' });
        }),
      };
      this.permissions.set(card.id, entry);
      void this.send([card]);
    });
  }

  /** The open permission request named by a respond command's subject (or cause). */
  openPermission(requestId: string | undefined): OpenPermission | undefined {
    return requestId === undefined ? undefined : this.permissions.get(requestId);
  }

  /** Answers a permission request with an option id the agent offered; returns the answered events. */
  answerPermission(requestId: string, optionId: string, commandId: string, by: string): AepEvent[] | null {
    const entry = this.permissions.get(requestId);
    if (!entry || !entry.ask.options.some((o) => o.optionId === optionId)) return null;
    this.permissions.delete(requestId);
    entry.cancelTimer();
    entry.answer({ outcome: 'selected', optionId });
    const [answered] = this.deps.emitter.stamp(this.session, [
      { type: 'attention.answered', subject: requestId, cause: commandId, capture: 'metadata', data: { answer: { option: optionId }, via: 'control', by } },
    ]);
    const [resolved] = this.deps.emitter.stamp(this.session, [
      { type: 'attention.resolved', subject: requestId, cause: answered.id, capture: 'metadata', data: { resolution: 'answered', latency_ms: Math.max(0, this.deps.clock() - entry.requestedAtMs) } },
    ]);
    return [answered, resolved];
  }

  /**
   * Emits facts another source of this session saw (the session registry's merge): stamped by this
   * session's emitter, on its ordered chain, so they are this session's events. Resolves after commit.
   */
  emitFacts(events: readonly MappedEvent[]): Promise<void> {
    return this.ended ? Promise.resolve() : this.emitMapped(events);
  }

  /** Sends events this session produced elsewhere (acks, answers) on its ordered chain. */
  send(events: readonly AepEvent[]): Promise<void> {
    // The emitter keeps one session's sends in call order; this chain only tracks completion.
    const sent = this.deps.emitter.send(events).catch((error: unknown) => this.deps.logger.error('could not emit launched-session events', { error: String(error) }));
    this.chain = this.chain.then(() => sent);
    return sent;
  }

  /** Cancels the running turn (ACP session/cancel, Codex turn/interrupt); `commandId` becomes the run.cancelled cause. */
  async cancel(commandId: string | null): Promise<boolean> {
    if (!this.controller.generating) return false;
    this.cancelCause = commandId;
    // ACP: the client answers every pending permission request `cancelled` when it cancels the turn.
    this.dismissPermissions();
    await this.deps.driver.cancel();
    return true;
  }

  /**
   * The agent process went away (the connection is lost): the open run and a steer in flight fail,
   * queued inputs drop; the session becomes resumable (promptable again through session/load) when
   * the agent advertised it can load it, else it ends, with the reason.
   */
  exited(exit: AgentExit): void {
    if (this.ended) return;
    // Even a clean exit fails a turn it left running: nobody cancelled it, the agent went away.
    this.finish(exit.code === 0 && exit.signal === null ? 'normal' : 'error', exit.reason, undefined, true, this.deps.resumable === true ? 'resumable' : 'ended');
  }

  /**
   * Pushes `x.{agent}.session.state` (the coarse state, the end reason, and what steering adds:
   * supports_steering and the steer state) when it differs from the last one pushed.
   */
  publishState(): void {
    const data = { state: this.state, ...(this.endReason !== null && (this.state === 'ended' || this.state === 'resumable') ? { reason: this.endReason } : {}), ...(this.stateFacts?.() ?? {}) };
    const key = JSON.stringify(data);
    if (key === this.publishedState) return;
    this.publishedState = key;
    void this.emit([{ type: sessionStateType(this.deps.agent), capture: 'metadata', data }]);
  }

  /** Records a coarse state change, pushes it, tells the observer. */
  private setState(state: LaunchedState, reason?: string): void {
    this.state = state;
    this.deps.onState(state, reason);
    // The observer steps what depends on it first, so one pushed state says both.
    this.onStateChange?.(state);
    this.publishState();
  }

  /** A message arrived from the agent. */
  touched(): void {
    this.lastActivityMs = this.deps.clock();
  }

  /** Reports a running turn the agent has gone silent on (once per turn), re-armed while it talks. */
  private watch(run: string): void {
    const silence = this.deps.turnSilenceMs;
    const check = (): void => {
      if (this.ended || this.turn.run !== run) return;
      const quiet = this.deps.clock() - this.lastActivityMs;
      if (quiet >= silence) this.hung('session/prompt', silence);
      else this.cancelWatchdog = this.deps.schedule(silence - quiet, check);
    };
    this.cancelWatchdog = this.deps.schedule(silence, check);
  }

  /** The agent did not answer a request in time: reported on the stream and in the log. */
  hung(method: string, afterMs: number): void {
    this.deps.logger.warn('launched agent hung', { session: this.session, method, afterMs });
    void this.emit([{ type: 'x.acp.agent.hung', capture: 'metadata', severity: 'warning', data: { method, after_ms: afterMs } }]);
  }

  /** Ends the session: cancel a running turn, close the agent (bounded), terminal events. */
  async end(reason: 'normal' | 'killed' | 'error', detail: string, boundMs: number, cause?: string): Promise<void> {
    if (this.ended) return;
    if (this.controller.generating) {
      this.cancelCause = cause ?? null;
      await this.deps.driver.cancel().catch(() => undefined);
    }
    this.finish(reason, detail, cause);
    await this.deps.driver.close(boundMs).catch(() => undefined);
    await this.chain;
  }

  /** Waits until everything emitted so far was committed. */
  flushed(): Promise<void> {
    return this.chain;
  }

  /**
   * Ends the session's record in stream order: open permission requests dismissed, the open run's
   * unsettled tool calls failed (each caused by its request), the run itself (cancelled when the
   * session was ended on purpose, failed when the agent went away), then `session.ended`.
   */
  private finish(reason: 'normal' | 'killed' | 'error', detail: string, cause?: string, agentGone = false, final: 'ended' | 'resumable' = 'ended'): void {
    this.state = final;
    this.endReason = detail;
    this.cancelWatchdog();
    this.dismissPermissions();
    this.controller.dropAll('session-ended');
    this.flushIdle();
    const run = this.turn.run;
    const gone = agentGone || reason === 'error';
    const context = this.deps.mapping();
    // Every tool call still open fails, each in the run that requested it (background work too).
    const why = gone ? 'agent-exited' : 'session-ended';
    const tools = [...this.openTools].flatMap(([callId, open]) => (open.run === null ? [] : [toolAbandoned({ callId, name: open.name }, open.run, why, detail, context)]));
    for (const [callId] of this.openTools) {
      const known = this.turn.tools.get(callId);
      if (known) known.settled = true;
    }
    this.openTools.clear();
    if (tools.length > 0) void this.emitMapped(tools);
    if (run !== null) {
      if (gone) {
        const failed = runFailed('agent-exited', detail, this.turn, context);
        if (failed) void this.emitMapped([failed]);
      } else {
        // Ended on purpose while a turn ran: the run is cancelled, by the command or the shutdown.
        const by = cause !== undefined ? 'control' : detail === 'daemon shutdown' ? 'shutdown' : 'user';
        void this.emitMapped([{ ...runEnded({ stopReason: 'cancelled', raw: {} }, this.turn, context, by), ...(cause ? { cause } : {}) }]);
      }
    }
    this.onStateChange?.(final);
    this.publishState();
    void this.emit([{ type: 'session.ended', capture: 'metadata', data: { reason, runs: this.runs, duration_ms: Math.max(0, this.deps.clock() - this.startedAtMs) }, ...(cause ? { cause } : {}) }]);
    this.deps.emitter.release(this.session);
    this.deps.onState(final, detail);
  }

  private dismissPermissions(): void {
    for (const entry of [...this.permissions.values()]) {
      this.permissions.delete(entry.requestId);
      entry.cancelTimer();
      entry.answer({ outcome: 'cancelled' });
      void this.emit([{ type: 'attention.resolved', subject: entry.requestId, cause: entry.requestId, capture: 'metadata', data: { resolution: 'dismissed' } }]);
    }
  }

  private async startTurn(input: TurnInput): Promise<void> {
    if (this.ended) return;
    this.flushIdle();
    const run = this.deps.newId();
    this.turn.run = run;
    this.runs += 1;
    this.turnStartedAtMs = this.deps.clock();
    this.lastActivityMs = this.turnStartedAtMs;
    this.watch(run);
    this.setState('generating');
    const prompt = [{ type: 'text', text: input.text }];
    const started = { ...runStarted(run, prompt, input.text, this.deps.mapping(), 'user'), cause: input.id };
    void this.emitMapped([started]);
    void this.emit([{ type: inputSentType(this.deps.agent), run, capture: 'metadata', data: { delivery: input.delivery }, cause: input.id }]);
    let end: TurnEnd;
    try {
      end = await this.deps.driver.prompt(input.text);
    } catch (error) {
      // A prompt that failed because the agent died is settled by the exit (run.failed agent-exited).
      const gone = await Promise.race([this.deps.driver.exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 1_000).unref?.())]);
      if (this.ended || gone) return;
      const failed = runFailed('prompt-failed', (error as Error)?.message, this.turn, this.deps.mapping());
      if (failed) void this.emitMapped([failed]);
      this.lastEnd = 'failed';
      this.idle();
      return;
    }
    if (this.ended || this.turn.run !== run) return;
    const cause = end.stopReason === 'cancelled' ? this.cancelCause : null;
    this.lastEnd = end.stopReason === 'cancelled' ? 'cancelled' : 'finished';
    this.cancelCause = null;
    const context = this.deps.mapping();
    const terminal = runEnded(end, this.turn, context, cause !== null ? 'control' : 'user');
    const duration = Math.max(0, this.deps.clock() - this.turnStartedAtMs);
    const data = terminal.data === undefined ? undefined : { ...terminal.data, duration_ms: duration };
    if (terminal.type === 'run.finished' && data !== undefined) {
      // The assistant's text rides in `summary` at the capture level the user chose (applyCeiling).
      const [stamped] = this.deps.emitter.stampMapped(this.session, [{ ...terminal, data, capture: 'full', ...(cause ? { cause } : {}) }]);
      void this.send([applyCeiling(stamped, context.capture.default, {})]);
    } else {
      void this.emitMapped([{ ...terminal, ...(data ? { data } : {}), ...(cause ? { cause } : {}) }]);
    }
    this.idle();
  }

  private idle(): void {
    this.cancelWatchdog();
    if (this.ended) return;
    this.setState('idle');
  }

  private emitMapped(events: readonly (MappedEvent & { cause?: string })[]): Promise<void> {
    return this.send(this.deps.emitter.stampMapped(this.session, events));
  }

  private emit(drafts: readonly Parameters<AgentEmitter['stamp']>[1][number][]): Promise<void> {
    return this.send(this.deps.emitter.stamp(this.session, drafts));
  }
}
