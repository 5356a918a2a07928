/**
 * The permission loop (opt-in per vendor): a held permission hook waits for a
 * `control.attention.respond` (allow / deny / free text per AEP-0008, form values per AEP-0006) or
 * for the hold window, whichever comes first; a timeout emits `attention.timeout` and frees the hook
 * with an empty reply so the vendor shows its own dialog. Held replies carry decisions, never steering.
 */
import { captureRank, type AepEvent, type Capture } from '../../../common/aep/envelope';
import type { VendorId } from '../../../common/vendors';
import type { Logger } from '../logger';
import type { SessionsRepo } from '../store/sessions-repo';
import type { AttentionAnswer, HookCall, HookReply, MappedEvent, MappingContext, VendorAdapter } from '../vendors/types';
import type { ControlAcks } from './control-acks';
import { commandOrigin } from './instruct-command';
import { plainDurableLog } from './durable-log';
import type { AuditSink, Clock, DurableLog, HangUp, VendorChannel } from './steering-types';

/** Arms a one-shot timer; returns its cancel function. Injected so tests fire timeouts by hand. */
export type Scheduler = (ms: number, fire: () => void) => () => void;

/** The real scheduler (an unref'd timer, so a held hook never keeps a closing process alive). */
export const realScheduler: Scheduler = (ms, fire) => {
  const timer = setTimeout(fire, ms);
  timer.unref?.();
  return () => clearTimeout(timer);
};

/** What the loop is built from. */
export interface PermissionLoopDeps {
  readonly acks: ControlAcks;
  readonly audit: AuditSink;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly sessions: SessionsRepo;
  /** `permissions.holdMs`: kept safely below the vendor's hook timeout by the installer's settings. */
  readonly holdMs: () => number;
  readonly schedule: Scheduler;
  readonly channel: (vendor: VendorId) => VendorChannel;
  readonly adapter: (vendor: VendorId) => VendorAdapter;
  /** Commits the ack or attention events with what they report (default: sent after the fact). */
  readonly durable?: DurableLog;
  /** The ids of a session's attention requests its stored events left open (for `reconcile`). */
  readonly openRequests?: (source: string, session: string) => string[];
}

interface Pending {
  readonly vendor: VendorId;
  readonly session: string;
  readonly source: string;
  readonly call: HookCall;
  readonly context: MappingContext;
  readonly requestedAtMs: number;
  readonly settle: (reply: HookReply) => void;
  cancelTimer: () => void;
}

/** Held permission hooks, keyed by the id of their `attention.requested` event. */
export class PermissionLoop {
  private readonly pending = new Map<string, Pending>();
  private readonly durable: DurableLog;

  constructor(private readonly deps: PermissionLoopDeps) {
    this.durable = deps.durable ?? plainDurableLog(deps.logger);
  }

  /** How many hooks are held now. */
  get held(): number {
    return this.pending.size;
  }

  /**
   * Puts the moment the hold will give up on the `attention.requested` a held hook is about to
   * emit, as the payload's `expires_at` (AEP-0002, RFC 3339, metadata class): consoles count down
   * to it, and `hold` times out at exactly that moment. Events without a payload (capture `none`)
   * stay as they are.
   */
  withDeadline(events: readonly MappedEvent[]): MappedEvent[] {
    const expiresAt = new Date(this.deps.clock() + this.deps.holdMs()).toISOString();
    return events.map((e) => (e.type === 'attention.requested' && e.data !== undefined ? { ...e, data: { ...e.data, expires_at: expiresAt } } : e));
  }

  /**
   * Holds a permission hook whose `attention.requested` event (`request`) was just emitted; resolves
   * with the vendor reply once answered, timed out, dismissed or closed. The hold ends at the
   * request's `expires_at` (see `withDeadline`), at most `permissions.holdMs` from now.
   */
  hold(vendor: VendorId, source: string, call: HookCall, request: AepEvent, context: MappingContext, hangUp?: HangUp): Promise<HookReply> {
    return new Promise<HookReply>((resolve) => {
      const entry: Pending = {
        vendor,
        session: call.session,
        source,
        call,
        context,
        requestedAtMs: this.deps.clock(),
        settle: resolve,
        cancelTimer: () => undefined,
      };
      this.pending.set(request.id, entry);
      this.deps.sessions.adjustPendingAttention(source, call.session, +1);
      const holdMs = this.deps.holdMs();
      const expires = typeof request.data?.['expires_at'] === 'string' ? Date.parse(request.data['expires_at']) : NaN;
      const wait = Number.isFinite(expires) ? Math.min(holdMs, Math.max(0, expires - entry.requestedAtMs)) : holdMs;
      entry.cancelTimer = this.deps.schedule(wait, () => this.timeout(request.id, holdMs));
      // The vendor gave up on the hook (its own timeout, or it exited): the request cannot be answered any more.
      if (hangUp?.happened) void this.dismiss(request.id);
      else hangUp?.onHangUp(() => void this.dismiss(request.id));
    });
  }

  /** Decides a `control.attention.respond`: applies a valid answer to its held hook, or nacks it. */
  async handleRespond(vendor: VendorId, command: AepEvent): Promise<void> {
    const { acks, audit } = this.deps;
    const channel = this.deps.channel(vendor);
    const origin = commandOrigin(command);
    const base = { actor: origin.actor, surface: origin.surface, session: command.session ?? null, commandId: command.id };
    const recorded = acks.recorded(command);
    if (recorded) {
      audit({ ...base, action: 'permission.retry', outcome: 'replayed', detail: null });
      await acks.resend(channel, recorded);
      return;
    }
    const requestId = typeof command.subject === 'string' ? command.subject : command.cause;
    const entry = requestId === undefined ? undefined : this.pending.get(requestId);
    const answer = readAnswer(command.data?.['answer']);
    const reject = async (detail: string): Promise<void> => {
      const { sent } = this.durable.commit((keep) => {
        if (!acks.decide(channel, command, { accepted: false, reason: 'invalid', detail }, keep)) return;
        audit({ ...base, action: 'permission.decision', outcome: 'rejected', detail: { reason: 'invalid', detail } });
      });
      await sent;
    };
    if (!entry || entry.vendor !== vendor || entry.session !== command.session) {
      return reject('no held attention request with that subject (already answered, timed out, or unknown)');
    }
    if (!answer) return reject('data.answer must be an object with option, text or values');
    const decision = this.deps.adapter(vendor).permissionReply(entry.call, answer, entry.context);
    // An invalid answer leaves the request pending, so the operator can answer again (AEP-0006).
    if (!decision.ok) return reject(decision.error.message);
    // The ack, the answer and the resolution commit together; the held hook is freed after COMMIT.
    const { value: accepted, sent } = this.durable.commit((keep) => {
      if (!acks.decide(channel, command, { accepted: true }, keep)) return false;
      this.release(requestId as string, entry);
      const now = this.deps.clock();
      const applied = (decision.value.answered as { answer?: Record<string, unknown> }).answer ?? {};
      // Free text and form values are user-authored content (redacted class); a bare option is structural.
      const capture = capped(applied.text !== undefined || applied.values !== undefined ? 'redacted' : 'metadata', entry.context);
      const [answered] = channel.stamp(entry.session, [
        { type: 'attention.answered', subject: requestId, cause: command.id, capture, data: { ...decision.value.answered, by: origin.actor } },
      ]);
      const [resolved] = channel.stamp(entry.session, [
        {
          type: 'attention.resolved',
          subject: requestId,
          cause: answered.id,
          ...envelopeOnlyAtNone(entry.context),
          data: { resolution: 'answered', latency_ms: Math.max(0, now - entry.requestedAtMs) },
        },
      ]);
      keep(channel, [answered, resolved]);
      audit({ ...base, action: 'permission.decision', outcome: 'ok', detail: { request: requestId, option: applied.option ?? null } });
      return true;
    });
    if (accepted) entry.settle(decision.value.reply);
    await sent;
  }

  /** Frees every held hook of a session with an empty reply (`attention.resolved` dismissed), e.g. when it ends. */
  dismissSession(vendor: VendorId, session: string): void {
    for (const [id, entry] of [...this.pending]) {
      if (entry.vendor === vendor && entry.session === session) void this.dismiss(id);
    }
  }

  /**
   * Frees one held hook with an empty reply once its `attention.resolved` (dismissed) is committed;
   * resolves when that event was fanned out.
   */
  private dismiss(id: string): Promise<void> {
    const entry = this.pending.get(id);
    if (!entry) return Promise.resolve();
    const channel = this.deps.channel(entry.vendor);
    const { sent } = this.durable.commit((keep) => {
      this.release(id, entry);
      keep(
        channel,
        channel.stamp(entry.session, [
          {
            type: 'attention.resolved',
            subject: id,
            cause: id,
            ...envelopeOnlyAtNone(entry.context),
            data: { resolution: 'dismissed', latency_ms: Math.max(0, this.deps.clock() - entry.requestedAtMs) },
          },
        ]),
      );
    });
    entry.settle(this.deps.adapter(entry.vendor).emptyReply());
    return sent;
  }

  /**
   * Daemon shutdown: every held hook is dismissed (`attention.resolved` dismissed, committed before
   * its empty reply), so no history ends at an `attention.requested` the daemon can no longer answer.
   * The vendors fall back to their own dialogs. Resolves when the events were fanned out.
   */
  async close(): Promise<void> {
    await Promise.all([...this.pending.keys()].map((id) => this.dismiss(id)));
  }

  /**
   * After a crash: the hooks a previous daemon held were hung up on when it died (their vendors fell
   * back to their own dialogs), so each request it left open is dismissed, with an audit row, and
   * the session's open-attention count is cleared. Returns how many were dismissed.
   */
  reconcile(): number {
    const open = this.deps.openRequests;
    if (!open) return 0;
    let dismissed = 0;
    for (const row of this.deps.sessions.live()) {
      if (row.pendingAttention <= 0 || row.vendor === null) continue;
      const vendor = row.vendor;
      const ids = open(row.source, row.session);
      const channel = this.deps.channel(vendor);
      this.durable.commit((keep) => {
        this.deps.sessions.adjustPendingAttention(row.source, row.session, -row.pendingAttention);
        if (ids.length === 0) return;
        keep(channel, channel.stamp(row.session, ids.map((id) => ({ type: 'attention.resolved', subject: id, cause: id, data: { resolution: 'dismissed' as const } }))));
        for (const id of ids) {
          this.deps.audit({
            actor: 'daemon',
            surface: 'daemon',
            action: 'permission.dismissed',
            session: row.session,
            commandId: null,
            outcome: 'dismissed',
            detail: { request: id, reason: 'the daemon stopped while the hook was held' },
          });
        }
      });
      dismissed += ids.length;
    }
    return dismissed;
  }

  private timeout(id: string, holdMs: number): void {
    const entry = this.pending.get(id);
    if (!entry) return;
    const channel = this.deps.channel(entry.vendor);
    this.durable.commit((keep) => {
      this.release(id, entry);
      keep(channel, channel.stamp(entry.session, [{ type: 'attention.timeout', subject: id, cause: id, ...envelopeOnlyAtNone(entry.context), data: { after_ms: holdMs } }]));
      this.deps.audit({
        actor: entry.vendor,
        surface: 'hook',
        action: 'permission.timeout',
        session: entry.session,
        commandId: null,
        outcome: 'timeout',
        detail: { request: id, after_ms: holdMs },
      });
    });
    entry.settle(this.deps.adapter(entry.vendor).emptyReply());
  }

  private release(id: string, entry: Pending): void {
    this.pending.delete(id);
    entry.cancelTimer();
    this.deps.sessions.adjustPendingAttention(entry.source, entry.session, -1);
  }

}

/** The `answer` object of a respond command, or null when it has no usable shape. */
function readAnswer(value: unknown): AttentionAnswer | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const v = value as Record<string, unknown>;
  const answer: { option?: string; text?: string; values?: Record<string, unknown> } = {};
  if (typeof v['option'] === 'string') answer.option = v['option'];
  if (typeof v['text'] === 'string') answer.text = v['text'];
  if (typeof v['values'] === 'object' && v['values'] !== null && !Array.isArray(v['values'])) answer.values = v['values'] as Record<string, unknown>;
  return answer.option === undefined && answer.text === undefined && answer.values === undefined ? null : answer;
}

/** The capture of an attention event, never above the operator's attention ceiling. */
function capped(capture: Capture, context: MappingContext): Capture {
  const ceiling = context.capture.attention;
  return captureRank(capture) > captureRank(ceiling) ? ceiling : capture;
}

/** At an attention ceiling of `none` an event is the envelope alone: the emitter then leaves `data` out. */
const envelopeOnlyAtNone = (context: MappingContext): { capture?: 'none' } =>
  context.capture.attention === 'none' ? { capture: 'none' } : {};
