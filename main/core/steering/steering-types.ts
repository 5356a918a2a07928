/** The seams the steering machinery is built against: clock, audit sink, and a vendor's event channel. */
import type { AepEvent, Capture, Severity } from '../../../common/aep/envelope';
import type { AuditRow } from '../../../common/audit';

/** Milliseconds since the epoch; injected so tests never depend on wall time. */
export type Clock = () => number;

/** One audit row before the log numbers and timestamps it. */
export type AuditEntry = Omit<AuditRow, 'id' | 'time'>;

/** Appends an audit row; never throws into the caller (a failing audit is logged, not fatal). */
export type AuditSink = (entry: AuditEntry) => void;

/** An event before the emitter stamps its envelope (id, time, source, agent, session, seq, epoch). */
export interface EventDraft {
  readonly type: string;
  readonly subject?: string;
  readonly run?: string;
  readonly step?: string;
  readonly cause?: string;
  readonly severity?: Severity;
  readonly capture?: Capture;
  readonly data?: Readonly<Record<string, unknown>>;
}

/** One vendor's emitter as steering sees it: stamps events into a session's sequence, then sends them. */
export interface VendorChannel {
  /** Stamps drafts in order with consecutive positions of `session`. Synchronous, so order is call order. */
  stamp(session: string, drafts: readonly EventDraft[]): AepEvent[];
  /** Sends stamped events (or a recorded event again, byte-identically); resolves after commit. */
  send(events: readonly AepEvent[]): Promise<void>;
}

/** The vendor's side of a hook call: whether it hung up, and a way to hear when it does. */
export interface HangUp {
  readonly happened: boolean;
  onHangUp(listener: () => void): void;
}

/** Records events on their channel: `keep(channel, events)` inside `DurableLog.commit`. */
export type Keep = (channel: VendorChannel, events: readonly AepEvent[]) => void;

/**
 * Writes that must commit together with the events that report them: a decision and its ack, a
 * settled instruction and its `delivered`/`dropped` event. `commit` runs `write` and stores every
 * event it keeps in ONE transaction (a crash keeps both or neither), then fans the kept events out
 * on their channels.
 */
export interface DurableLog {
  commit<T>(write: (keep: Keep) => T): Committed<T>;
}

/** What `write` returned (committed), and the fan-out of the kept events (resolves when sent; never rejects). */
export interface Committed<T> {
  readonly value: T;
  readonly sent: Promise<void>;
}
