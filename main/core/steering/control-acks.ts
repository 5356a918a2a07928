/**
 * One ack decision per command (AEP-0004 §3): the ack is stamped, recorded durably together with
 * what it commits to and with the ack event itself (one transaction), then fanned out; a retried
 * command gets the recorded ack again, byte-identically.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { RecordedAck, QueuedInstruction, SteeringRepo } from '../store/steering-repo';
import { commandOrigin } from './instruct-command';
import type { AuditSink, Clock, DurableLog, Keep, VendorChannel } from './steering-types';

/** The AEP-0004 §3 nack reasons. */
export type RejectReason = 'unsupported' | 'unauthorized' | 'busy' | 'refused' | 'invalid';

/** An ack decision. `detail` is [redacted]-class on the stream, so a nack with one is capture-marked. */
export type AckDecision = { readonly accepted: true } | { readonly accepted: false; readonly reason: RejectReason; readonly detail?: string };

/** Records and sends control acks; answers redelivered commands from the record. */
export class ControlAcks {
  constructor(
    private readonly repo: SteeringRepo,
    private readonly clock: Clock,
  ) {}

  /** The recorded ack of a command already decided, or null for a new command. */
  recorded(command: AepEvent): RecordedAck | null {
    return this.repo.findAck(command.source, command.id);
  }

  /** Sends a recorded ack again exactly as first emitted (same id, same position, same bytes). */
  resend(channel: VendorChannel, ack: RecordedAck): Promise<void> {
    return channel.send([JSON.parse(ack.json) as AepEvent]);
  }

  /**
   * Stamps the ack into the command's session and records it (with the queue entry of an accepted
   * instruction) and keeps the ack event with `keep`, all inside the caller's `DurableLog.commit`:
   * the decision and its ack on the stream commit together. Returns null when a concurrent delivery
   * of the same command already decided it.
   */
  decide(
    channel: VendorChannel,
    command: AepEvent,
    decision: AckDecision,
    keep: Keep,
    queued?: QueuedInstruction,
  ): AepEvent | null {
    const session = command.session ?? '';
    const [ack] = channel.stamp(session, [ackDraft(command.id, decision)]);
    const json = JSON.stringify(ack);
    const fresh = this.repo.recordDecision(
      { source: command.source, commandId: command.id, session: command.session ?? null, json },
      this.clock(),
      decision.accepted ? queued : undefined,
    );
    if (!fresh) return null;
    keep(channel, [ack]);
    return ack;
  }
}

/** What deciding a command came to, for `decideOnce`. */
export interface DecidedOutcome {
  readonly decision: AckDecision;
  /** Events to send once the ack is out (cause-linked followers). */
  readonly after?: (ackId: string) => AepEvent[];
  /** No ack was made for this decision (another delivery was recorded first): undo what it set up. */
  readonly abandon?: () => void;
}

/**
 * Decides a command once, for a control surface of its own (the Cline hub, the OpenHands server):
 * a redelivered command gets its recorded ack again; a redelivery while the first is being decided
 * waits for nothing; the decision, its audit row (`control.accepted` / `control.rejected`) and its
 * ack event commit together (DurableLog); the outcome's followers go out after the ack.
 */
export async function decideOnce(
  deps: { readonly acks: ControlAcks; readonly durable: DurableLog; readonly emitter: VendorChannel; readonly audit: AuditSink },
  inFlight: Set<string>,
  command: AepEvent,
  decide: (command: AepEvent) => Promise<DecidedOutcome>,
): Promise<void> {
  const recorded = deps.acks.recorded(command);
  if (recorded) return deps.acks.resend(deps.emitter, recorded);
  const key = `${command.source}\u0000${command.id}`;
  if (inFlight.has(key)) return;
  inFlight.add(key);
  try {
    const outcome = await decide(command);
    const { value: ack, sent } = deps.durable.commit((keep) => {
      const decided = deps.acks.decide(deps.emitter, command, outcome.decision, keep);
      if (decided) auditDecision(deps.audit, command, outcome.decision);
      return decided;
    });
    if (!ack) {
      outcome.abandon?.();
      return;
    }
    await sent;
    const followers = outcome.after?.(ack.id) ?? [];
    if (followers.length > 0) await deps.emitter.send(followers);
  } finally {
    inFlight.delete(key);
  }
}

/** The audit row of a command's decision, with the actor and surface the command names. */
function auditDecision(audit: AuditSink, command: AepEvent, decision: AckDecision): void {
  const origin = commandOrigin(command);
  audit({
    actor: origin.actor,
    surface: origin.surface,
    action: decision.accepted ? 'control.accepted' : 'control.rejected',
    session: command.session ?? null,
    commandId: command.id,
    outcome: decision.accepted ? 'ok' : 'rejected',
    detail: decision.accepted ? { type: command.type } : { type: command.type, reason: decision.reason, detail: decision.detail ?? null },
  });
}

/** The ack draft for a decision (cause = the command id). */
function ackDraft(commandId: string, decision: AckDecision) {
  if (decision.accepted) return { type: 'control.accepted', cause: commandId, data: {} };
  const data = decision.detail === undefined ? { reason: decision.reason } : { reason: decision.reason, detail: decision.detail };
  return {
    type: 'control.rejected',
    cause: commandId,
    ...(decision.detail === undefined ? {} : { capture: 'redacted' as const }),
    data,
  };
}
