/**
 * One ack decision per command (AEP-0004 §3): the ack is stamped, recorded durably together with
 * what it commits to and with the ack event itself (one transaction), then fanned out; a retried
 * command gets the recorded ack again, byte-identically.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { RecordedAck, QueuedInstruction, SteeringRepo } from '../store/steering-repo';
import type { Clock, Keep, VendorChannel } from './steering-types';

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
