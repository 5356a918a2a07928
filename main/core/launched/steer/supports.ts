/**
 * `supports_steering` and the session badge, derived at serialization time from the live
 * connection, the toggles and the session state; never stored. The badge promises delivery, never
 * a fold: whether the agent folds is its own decision.
 */
import type { SteerMechanism, SteerSupport } from '../../../../common/agent-inputs';

/** The coarse session state as the launched-session host reports it. */
export type HostedState = 'starting' | 'idle' | 'generating' | 'ending' | 'ended';

export interface SupportInput {
  /** A live connection to the agent process. */
  readonly connected: boolean;
  readonly mechanism: SteerMechanism;
  /** What advertised the mechanism (capability.ts `basis`). */
  readonly basis: string;
  readonly steeringOn: boolean;
  readonly midTurnOn: boolean;
  readonly state: HostedState;
}

export const BADGE = {
  'mid-turn': 'delivered now',
  'next-turn': 'next turn',
  'queue-only': 'queue only',
} as const;

/** Derives the session's steer support and badge. */
export function deriveSupport(input: SupportInput): SteerSupport {
  const { mechanism } = input;
  const build = (mode: keyof typeof BADGE, reason: string): SteerSupport => ({
    supports_steering: mode === 'mid-turn',
    mode,
    badge: BADGE[mode],
    reason,
    mechanism,
  });
  if (!input.connected || input.state === 'ended' || input.state === 'ending') {
    return build('queue-only', 'the agent is not connected');
  }
  if (mechanism === 'none')
    return build('queue-only', input.basis || 'the agent advertised no mid-turn input');
  if (!input.steeringOn) return build('next-turn', 'steering is off (kill switch)');
  if (!input.midTurnOn) return build('next-turn', 'mid-turn steering is off');
  if (input.state === 'starting') return build('next-turn', 'the session is starting');
  return build('mid-turn', input.basis);
}
