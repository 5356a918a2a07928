/**
 * The steering engine (design record, ARCHITECTURE §4): acks `x.{vendor}.control.instruct`
 * commands, keeps the per-session FIFO queue durable, hands queued texts to the next eligible hook
 * reply, and settles every instruction on the stream and in the audit log as delivered or dropped.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { MAX_INSTRUCTION_CHARS, MAX_QUEUED_PER_SESSION, type DropReason } from '../../../common/steering';
import type { Surface } from '../../../common/audit';
import type { VendorId, VendorProfile } from '../../../common/vendors';
import type { Logger } from '../logger';
import type { SessionsRepo } from '../store/sessions-repo';
import type { QueuedInstruction, SteeringRepo } from '../store/steering-repo';
import type { AckDecision, ControlAcks } from './control-acks';
import { planDelivery } from './delivery-plan';
import { commandOrigin, instructText, type CommandOrigin } from './instruct-command';
import { plainDurableLog } from './durable-log';
import type { AuditSink, Clock, DurableLog, Keep, VendorChannel } from './steering-types';

/** What the engine is built from; everything arrives as a parameter. */
export interface SteeringEngineDeps {
  readonly repo: SteeringRepo;
  readonly sessions: SessionsRepo;
  readonly acks: ControlAcks;
  readonly audit: AuditSink;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The kill switch (`features.steering`), read at each decision so a flip takes effect at once. */
  readonly enabled: () => boolean;
  /** `steering.idleExpiryMs`. */
  readonly idleExpiryMs: () => number;
  readonly profile: (vendor: VendorId) => VendorProfile;
  readonly channel: (vendor: VendorId) => VendorChannel;
  /** Runs a decision's writes (audit rows, ack, queue entry) as one transaction: one commit per command. */
  readonly atomic?: <T>(fn: () => T) => T;
  /** Commits steering rows, audit rows and the events reporting them together (default: `atomic`, then send). */
  readonly durable?: DurableLog;
}

/** Instructions taken for one hook reply: settle them once the reply was written (or could not be). */
export interface Handover {
  readonly text: string;
  /** `written`: the reply left in full (delivered); otherwise dropped `reply-not-written`. Idempotent. */
  settle(written: boolean): Promise<void>;
}

/** The nack reason and detail of a command that arrives while the daemon drains. */
export const DRAINING_DETAIL = 'the daemon is shutting down';

/** The largest text one instruction may carry for a vendor: its context cap, else the product-wide bound. */
export const instructionLimit = (profile: VendorProfile): number =>
  Math.min(profile.contextCap ?? MAX_INSTRUCTION_CHARS, MAX_INSTRUCTION_CHARS);

/** Handles steering commands and settles queued instructions. */
export class SteeringEngine {
  private readonly durable: DurableLog;
  private draining = false;
  private readonly inflight = new Set<Promise<void>>();
  private readonly handing = new Set<Promise<void>>();

  constructor(private readonly deps: SteeringEngineDeps) {
    this.durable = deps.durable ?? plainDurableLog(deps.logger, deps.atomic);
  }

  /**
   * Decides an instruct command: a retry gets its recorded ack; a new command is accepted and
   * queued, or rejected with a reason. The decision, its audit rows and the ack event commit in
   * one transaction; resolves once the ack was fanned out.
   */
  handleInstruct(vendor: VendorId, command: AepEvent): Promise<void> {
    const run = (async () => {
      // Boxed: a transaction function may not return a promise.
      const { value, sent } = this.durable.commit((keep) => ({ resend: this.decideInstruct(vendor, command, keep) }));
      await sent;
      if (value.resend) await value.resend;
    })();
    this.inflight.add(run);
    void run.finally(() => this.inflight.delete(run)).catch(() => undefined);
    return run;
  }

  /**
   * Shutdown, first step: every command from now on is nacked `busy` ("the daemon is shutting
   * down"), and the decisions already under way are awaited, so each admitted command has its ack
   * committed and fanned out before the subscriptions close.
   */
  async drain(): Promise<void> {
    this.draining = true;
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }

  /** The synchronous part of a decision; returns the resend of a recorded ack, or null. */
  private decideInstruct(vendor: VendorId, command: AepEvent, keep: Keep): Promise<void> | null {
    const { acks, audit } = this.deps;
    const channel = this.deps.channel(vendor);
    const origin = commandOrigin(command);
    const recorded = acks.recorded(command);
    if (recorded) {
      audit(this.row(origin, 'instruct.retry', command, 'replayed', null));
      return acks.resend(channel, recorded);
    }
    audit(this.row(origin, 'instruct.command', command, 'received', null));
    const verdict = this.judge(vendor, command);
    if (!verdict.accepted) {
      if (!acks.decide(channel, command, verdict, keep)) return null;
      audit(this.row(origin, 'instruct.rejected', command, 'rejected', { reason: verdict.reason, detail: verdict.detail ?? null }));
      return null;
    }
    const queued: QueuedInstruction = {
      commandSource: command.source,
      commandId: command.id,
      vendor,
      session: command.session ?? '',
      text: verdict.text,
      actor: origin.actor,
      surface: origin.surface,
      queuedAtMs: this.deps.clock(),
    };
    if (!acks.decide(channel, command, { accepted: true }, keep, queued)) return null;
    audit(this.row(origin, 'instruct.accepted', command, 'ok', { queued: this.deps.repo.countQueued(vendor, queued.session) }));
    return null;
  }

  /**
   * Takes what fits of the session's queue for an eligible hook reply: the instructions move to
   * `handing` (so no other hook can take them) and the caller settles the hand-over once the reply
   * was written. The caller has checked eligibility (delivery moment, not held, reply otherwise
   * empty, opt-in). Returns null when nothing is queued or steering is off.
   */
  deliver(vendor: VendorId, session: string, moment: string): Handover | null {
    if (!this.deps.enabled()) return null;
    const queue = this.deps.repo.queued(vendor, session);
    if (queue.length === 0) return null;
    const plan = planDelivery(queue, instructionLimit(this.deps.profile(vendor)));
    if (!plan) return null;
    const taken = this.deps.repo.markHanding(plan.take, this.deps.clock());
    if (taken.length === 0) return null;
    const text = taken.length === plan.take.length ? plan.text : (planDelivery(taken, Number.MAX_SAFE_INTEGER)?.text ?? null);
    if (text === null) return null;
    let settled: Promise<void> | undefined;
    let done: () => void = () => undefined;
    const open = new Promise<void>((resolve) => (done = resolve));
    this.handing.add(open);
    return {
      text,
      settle: (written) =>
        (settled ??= this.settleHandover(written, vendor, session, moment, taken).finally(() => {
          this.handing.delete(open);
          done();
        })),
    };
  }

  /** Resolves once every open hand-over was settled (shutdown: after the hook routes stopped). */
  async handoversSettled(): Promise<void> {
    while (this.handing.size > 0) await Promise.allSettled([...this.handing]);
  }

  /** Never throws (it runs from a response's `finish`): a failed commit leaves the row `handing`, settled at the next start. */
  private settleHandover(written: boolean, vendor: VendorId, session: string, moment: string, taken: readonly QueuedInstruction[]): Promise<void> {
    try {
      return written ? this.delivered(vendor, session, moment, taken) : this.drop(taken, 'reply-not-written', { actor: 'daemon', surface: 'daemon' }, 'handing').sent;
    } catch (error) {
      this.deps.logger.error('could not settle a hand-over', { vendor, session, error: String(error) });
      return Promise.resolve();
    }
  }

  /** The reply carrying `taken` was written: delivered rows, audit rows and events commit together. */
  private delivered(vendor: VendorId, session: string, moment: string, taken: readonly QueuedInstruction[]): Promise<void> {
    const now = this.deps.clock();
    const channel = this.deps.channel(vendor);
    return this.durable.commit((keep) => {
      const settled = this.deps.repo.markDelivered(taken, moment, now);
      for (const i of settled) {
        this.deps.audit({
          actor: vendor,
          surface: 'hook',
          action: 'instruct.delivered',
          session,
          commandId: i.commandId,
          outcome: 'ok',
          detail: { moment, queued_ms: Math.max(0, now - i.queuedAtMs) },
        });
      }
      keep(
        channel,
        channel.stamp(
          session,
          settled.map((i) => ({
            type: `x.${vendor}.instruction.delivered`,
            cause: i.commandId,
            data: { queued_ms: Math.max(0, now - i.queuedAtMs), moment },
          })),
        ),
      );
    }).sent;
  }

  /** A session ended: every instruction still queued for it is dropped with `session-ended`. */
  sessionEnded(vendor: VendorId, session: string): number {
    return this.drop(this.deps.repo.queued(vendor, session), 'session-ended', { actor: 'daemon', surface: 'daemon' }).count;
  }

  /**
   * Another source took control of the session (sessions/registry.ts): what the hook path still
   * holds queued for it is dropped with `owner-changed`, so each message takes exactly one route
   * (the owner's input); the operator sends it again there.
   */
  ownerChanged(vendor: VendorId, session: string): number {
    return this.drop(this.deps.repo.queued(vendor, session), 'owner-changed', { actor: 'daemon', surface: 'daemon' }).count;
  }

  /** The kill switch turned off: every queued instruction is dropped with `steering-disabled`. */
  steeringDisabled(by: { actor: string; surface: Surface }): number {
    return this.drop(this.deps.repo.allQueued(), 'steering-disabled', by).count;
  }

  /**
   * Drops (`session-idle`) the queues of sessions silent for the idle expiry, for vendors with a
   * session-end moment that some modes skip (Qwen Code's `-p` runs never send SessionEnd). A
   * vendor with no session-end moment at all (Codex, VS Code: design record's adoption map) keeps
   * its queue for the daemon's lifetime: a live session takes it at its next eligible hook.
   */
  sweepIdle(): number {
    const now = this.deps.clock();
    const expiry = this.deps.idleExpiryMs();
    const stale: QueuedInstruction[] = [];
    const seen = new Map<string, boolean>();
    for (const item of this.deps.repo.allQueued()) {
      if (this.deps.profile(item.vendor).sessionEndMoment === null) continue;
      const key = `${item.vendor}\u0000${item.session}`;
      let expired = seen.get(key);
      if (expired === undefined) {
        const row = this.deps.sessions.findByVendor(item.vendor, item.session);
        const lastSeen = row?.lastSeenMs ?? item.queuedAtMs;
        expired = now - lastSeen >= expiry;
        seen.set(key, expired);
      }
      if (expired) stale.push(item);
    }
    return this.drop(stale, 'session-idle', { actor: 'daemon', surface: 'daemon' }).count;
  }

  /**
   * Settles what a previous daemon run left queued: dropped when steering is now off or the
   * session has ended; otherwise kept for the next eligible hook.
   */
  reconcile(): number {
    // Caught mid-hand-over by a crash: whether the agent read it is unknown, so it is never sent again.
    const unconfirmed = this.drop(this.deps.repo.allHanding(), 'daemon-restart-unconfirmed', { actor: 'daemon', surface: 'daemon' }, 'handing').count;
    if (!this.deps.enabled()) return unconfirmed + this.steeringDisabled({ actor: 'daemon', surface: 'daemon' });
    const ended = this.deps.repo
      .allQueued()
      .filter((i) => this.deps.sessions.findByVendor(i.vendor, i.session)?.state === 'ended');
    return unconfirmed + this.drop(ended, 'session-ended', { actor: 'daemon', surface: 'daemon' }).count;
  }

  private judge(vendor: VendorId, command: AepEvent): ({ accepted: true; text: string }) | (AckDecision & { accepted: false }) {
    if (this.draining) return { accepted: false, reason: 'busy', detail: DRAINING_DETAIL };
    if (!this.deps.enabled()) return { accepted: false, reason: 'unsupported', detail: 'steering is turned off' };
    const session = command.session;
    if (typeof session !== 'string' || session === '') return { accepted: false, reason: 'invalid', detail: 'the command names no session' };
    const row = this.deps.sessions.findByVendor(vendor, session);
    if (!row) return { accepted: false, reason: 'invalid', detail: 'unknown session' };
    if (row.state === 'ended') return { accepted: false, reason: 'refused', detail: 'the session has ended' };
    if (!row.instructOptIn) return { accepted: false, reason: 'unsupported', detail: 'the session was not started with the steering opt-in' };
    const text = instructText(command, instructionLimit(this.deps.profile(vendor)));
    if (!text.ok) return { accepted: false, reason: 'invalid', detail: text.error.message };
    const queued = this.deps.repo.countQueued(vendor, session);
    if (queued >= MAX_QUEUED_PER_SESSION) {
      return { accepted: false, reason: 'invalid', detail: `the session's queue is full (${MAX_QUEUED_PER_SESSION} instructions wait for delivery)` };
    }
    return { accepted: true, text: text.value };
  }

  /** Settles `items` (in state `from`) as dropped: rows, audit rows and `dropped` events commit together. */
  private drop(
    items: readonly QueuedInstruction[],
    reason: DropReason,
    by: { actor: string; surface: Surface },
    from: 'queued' | 'handing' = 'queued',
  ): { count: number; sent: Promise<void> } {
    if (items.length === 0) return { count: 0, sent: Promise.resolve() };
    const now = this.deps.clock();
    const { value: count, sent } = this.durable.commit((keep) => {
      const settled = this.deps.repo.markDropped(items, reason, now, from);
      const byVendorSession = new Map<string, QueuedInstruction[]>();
      for (const i of settled) {
        const key = `${i.vendor}\u0000${i.session}`;
        byVendorSession.set(key, [...(byVendorSession.get(key) ?? []), i]);
        this.deps.audit({
          actor: by.actor,
          surface: by.surface,
          action: 'instruct.dropped',
          session: i.session,
          commandId: i.commandId,
          outcome: 'dropped',
          detail: { reason, queued_ms: Math.max(0, now - i.queuedAtMs) },
        });
      }
      for (const group of byVendorSession.values()) {
        const { vendor, session } = group[0];
        const channel = this.deps.channel(vendor);
        keep(
          channel,
          channel.stamp(
            session,
            group.map((i) => ({
              type: `x.${vendor}.instruction.dropped`,
              cause: i.commandId,
              severity: 'notice' as const,
              data: { reason, queued_ms: Math.max(0, now - i.queuedAtMs) },
            })),
          ),
        );
      }
      return settled.length;
    });
    return { count, sent };
  }

  private row(origin: CommandOrigin, action: string, command: AepEvent, outcome: string, detail: Record<string, unknown> | null) {
    return {
      actor: origin.actor,
      surface: origin.surface,
      action,
      session: command.session ?? null,
      commandId: command.id,
      outcome,
      detail,
    };
  }
}
