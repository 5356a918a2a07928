/** Types shared by the relay's bindings. */
import type { AepEvent } from '../../../common/aep/envelope';
import type { Surface } from '../../../common/audit';

/** One validated event with its verbatim JSON text (what the store keeps and fan-out forwards). */
export interface IngestItem {
  readonly event: AepEvent;
  readonly json: string;
}

/** Who sends a command, for the gate and the audit trail. */
export interface CommandSender {
  /** True only for connections authenticated with the operator token (AEP-0004 §4.1). */
  readonly authenticated: boolean;
  readonly surface: Surface;
  /** A name for logs (never a token). */
  readonly label?: string;
}

/** A connection the relay must end in order on shutdown (SSE stream or WS socket). */
export interface TrackedConnection {
  readonly kind: 'sse' | 'ws';
  /** Sends the binding's orderly goodbye (closing frame / stream end) and closes. */
  shutdown(reason: string): void;
  /** Subscriptions currently open on it. */
  subscriptionCount(): number;
}
