/** Steering contracts: instruction lifecycle as the stream settles it. */
import type { VendorId } from './vendors';

/** Longest instruction text accepted by any vendor, before the vendor's own cap applies. */
export const MAX_INSTRUCTION_CHARS = 10_000;
/** FIFO cap of queued instructions per session. */
export const MAX_QUEUED_PER_SESSION = 20;

export type InstructionState = 'queued' | 'delivered' | 'dropped';
export type DropReason = 'session-ended' | 'steering-disabled' | 'session-idle';

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
