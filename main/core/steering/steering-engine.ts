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
import type { AuditSink, Clock, VendorChannel } from './steering-types';

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
}

/** The largest text one instruction may carry for a vendor: its context cap, else the product-wide bound. */
export const instructionLimit = (profile: VendorProfile): number =>
  Math.min(profile.contextCap ?? MAX_INSTRUCTION_CHARS, MAX_INSTRUCTION_CHARS);

/** Handles steering commands and settles queued instructions. */
export class SteeringEngine {
  constructor(private readonly deps: SteeringEngineDeps) {}

  /**
   * Decides an instruct command: a retry gets its recorded ack; a new command is accepted and
   * queued, or rejected with a reason. Resolves once the ack is committed.
   */
  async handleInstruct(vendor: VendorId, command: AepEvent): Promise<void> {
    const atomic = this.deps.atomic ?? ((fn) => fn());
    // Boxed: a transaction function may not return a promise.
    const { sent } = atomic(() => ({ sent: this.decideInstruct(vendor, command) }));
    await sent;
  }

  /** The synchronous part of a decision; returns the promise of the ack's sending. */
  private decideInstruct(vendor: VendorId, command: AepEvent): Promise<void> {
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
      const decided = acks.decide(channel, command, verdict);
      if (!decided) return Promise.resolve();
      audit(this.row(origin, 'instruct.rejected', command, 'rejected', { reason: verdict.reason, detail: verdict.detail ?? null }));
      return decided.sent;
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
    const decided = acks.decide(channel, command, { accepted: true }, queued);
    if (!decided) return Promise.resolve();
    audit(this.row(origin, 'instruct.accepted', command, 'ok', { queued: this.deps.repo.countQueued(vendor, queued.session) }));
    return decided.sent;
  }

  /**
   * Takes what fits of the session's queue for an eligible hook reply and settles it as delivered
   * at `moment`. The caller has checked eligibility (delivery moment, not held, reply otherwise
   * empty, opt-in). Returns the text for the reply, or null when nothing is queued or steering is off.
   */
  deliver(vendor: VendorId, session: string, moment: string): string | null {
    if (!this.deps.enabled()) return null;
    const queue = this.deps.repo.queued(vendor, session);
    if (queue.length === 0) return null;
    const plan = planDelivery(queue, instructionLimit(this.deps.profile(vendor)));
    if (!plan) return null;
    const now = this.deps.clock();
    // Settled before the reply leaves: a second hook racing this one cannot deliver them again.
    const settled = this.deps.repo.markDelivered(plan.take, moment, now);
    if (settled.length === 0) return null;
    const text = settled.length === plan.take.length ? plan.text : planDelivery(settled, Number.MAX_SAFE_INTEGER)?.text ?? null;
    const channel = this.deps.channel(vendor);
    const events = channel.stamp(
      session,
      settled.map((i) => ({
        type: `x.${vendor}.instruction.delivered`,
        cause: i.commandId,
        data: { queued_ms: Math.max(0, now - i.queuedAtMs), moment },
      })),
    );
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
    this.sendLogged(channel, events, 'delivered');
    return text;
  }

  /** A session ended: every instruction still queued for it is dropped with `session-ended`. */
  sessionEnded(vendor: VendorId, session: string): number {
    return this.drop(this.deps.repo.queued(vendor, session), 'session-ended', { actor: 'daemon', surface: 'daemon' });
  }

  /** The kill switch turned off: every queued instruction is dropped with `steering-disabled`. */
  steeringDisabled(by: { actor: string; surface: Surface }): number {
    return this.drop(this.deps.repo.allQueued(), 'steering-disabled', by);
  }

  /**
   * Drops (`session-idle`) the queues of sessions silent for the idle expiry. This applies to every
   * vendor: some have no session-end moment at all (Codex, VS Code), and vendors that have one do
   * not fire it in every mode (Qwen Code's `-p` runs never send SessionEnd), so waiting for an end
   * could strand an instruction forever.
   */
  sweepIdle(): number {
    const now = this.deps.clock();
    const expiry = this.deps.idleExpiryMs();
    const stale: QueuedInstruction[] = [];
    const seen = new Map<string, boolean>();
    for (const item of this.deps.repo.allQueued()) {
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
    return this.drop(stale, 'session-idle', { actor: 'daemon', surface: 'daemon' });
  }

  /**
   * Settles what a previous daemon run left queued: dropped when steering is now off or the
   * session has ended; otherwise kept for the next eligible hook.
   */
  reconcile(): number {
    if (!this.deps.enabled()) return this.steeringDisabled({ actor: 'daemon', surface: 'daemon' });
    const ended = this.deps.repo
      .allQueued()
      .filter((i) => this.deps.sessions.findByVendor(i.vendor, i.session)?.state === 'ended');
    return this.drop(ended, 'session-ended', { actor: 'daemon', surface: 'daemon' });
  }

  private judge(vendor: VendorId, command: AepEvent): ({ accepted: true; text: string }) | (AckDecision & { accepted: false }) {
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

  private drop(items: readonly QueuedInstruction[], reason: DropReason, by: { actor: string; surface: Surface }): number {
    if (items.length === 0) return 0;
    const now = this.deps.clock();
    const settled = this.deps.repo.markDropped(items, reason, now);
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
      const events = channel.stamp(
        session,
        group.map((i) => ({
          type: `x.${vendor}.instruction.dropped`,
          cause: i.commandId,
          severity: 'notice' as const,
          data: { reason, queued_ms: Math.max(0, now - i.queuedAtMs) },
        })),
      );
      this.sendLogged(channel, events, 'dropped');
    }
    return settled.length;
  }

  private sendLogged(channel: VendorChannel, events: AepEvent[], what: string): void {
    channel.send(events).catch((error: unknown) => {
      this.deps.logger.error(`could not emit ${what} events`, { error });
    });
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
