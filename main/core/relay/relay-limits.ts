/** The resource bounds of the relay; every one answers with a clear refusal when hit. */
import { DEFAULT_SUBSCRIPTION_LIMITS, type SubscriptionLimits } from './subscription';

/** Every bound the relay enforces. */
export interface RelayLimits extends SubscriptionLimits {
  /** Largest POST /events body (413 beyond). */
  readonly maxBodyBytes: number;
  /** Most events in one NDJSON batch (413 beyond). */
  readonly maxBatchEvents: number;
  /** Most resume positions in one `from` (limit-exceeded / 400 beyond). */
  readonly maxFromPositions: number;
  /** Most concurrent subscriptions on one WS connection (limit-exceeded beyond). */
  readonly maxSubscriptionsPerConnection: number;
  /** Largest WS frame accepted. */
  readonly maxFrameBytes: number;
  /** Interval of SSE `: ping` comments and WS liveness pings (ms). */
  readonly pingIntervalMs: number;
}

/** The defaults the daemon runs with. */
export const DEFAULT_RELAY_LIMITS: RelayLimits = {
  ...DEFAULT_SUBSCRIPTION_LIMITS,
  maxBodyBytes: 16 << 20,
  maxBatchEvents: 10_000,
  maxFromPositions: 1_000,
  maxSubscriptionsPerConnection: 64,
  maxFrameBytes: 4 << 20,
  pingIntervalMs: 15_000,
};
