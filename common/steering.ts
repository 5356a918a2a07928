/** Steering contracts: instruction lifecycle as the stream settles it. */
import type { VendorId } from './vendors';

/** Longest instruction text accepted by any vendor, before the vendor's own cap applies. */
export const MAX_INSTRUCTION_CHARS = 10_000;
/** FIFO cap of queued instructions per session. */
export const MAX_QUEUED_PER_SESSION = 20;

/** `handing`: taken for a hook reply that is being written; settles delivered (written) or dropped. */
export type InstructionState = 'queued' | 'handing' | 'delivered' | 'dropped';
/**
 * `reply-not-written`: the vendor hung up before the reply carrying it was written.
 * `daemon-restart-unconfirmed`: the daemon stopped mid-hand-over, so whether the agent read it is
 * unknown; it is never sent again.
 */
export type DropReason =
  | 'session-ended'
  | 'steering-disabled'
  | 'session-idle'
  | 'reply-not-written'
  | 'daemon-restart-unconfirmed'
  /** The operator withdrew it from the pending list before any hook took it. */
  | 'withdrawn'
  /** Another source took control of the session (the companion launched or resumed it): its input is the one route. */
  | 'owner-changed';

/** Payload of x.{vendor}.instruction.delivered. */
export interface DeliveredData {
  readonly queued_ms: number;
  readonly moment: string;
}

/** Payload of x.{vendor}.instruction.dropped. */
export interface DroppedData {
  readonly reason: DropReason;
  readonly queued_ms?: number;
}

/** One instruction as the steering table keeps it (served by /api/sessions/:id/instructions). */
export interface InstructionRecord {
  readonly commandId: string;
  readonly vendor: VendorId;
  readonly session: string;
  readonly state: InstructionState;
  readonly queuedAt: string;
  readonly settledAt: string | null;
  readonly moment: string | null;
  readonly queuedMs: number | null;
  readonly reason: DropReason | null;
}
