/**
 * Steer capability, negotiated from the agent's raw `initialize` result and nothing else: never
 * from an agent name, a version string or a message shape. Fail closed: anything that is not
 * exactly the advertised shape (`=== true` on an own property of a plain object) means no steer.
 *
 * - ACP `agentCapabilities._meta.claudeCode.promptQueueing === true`: the agent accepts a
 *   concurrent `session/prompt` (`concurrent-prompt`); whether it folds is its own decision and is
 *   classified from the wire (classifier.ts).
 * - ACP top-level `_meta.steering.supported === true`: the `_session/steering` extension request
 *   (`session-steering`), answered `injected` or `promptRequired`.
 * - Codex app-server: the protocol's native `turn/steer` with `expectedTurnId` (`turn-steer`),
 *   available on a well-formed app-server `initialize` answer.
 *
 * When an ACP agent advertises both, `concurrent-prompt` wins: it is the precondition the steering
 * design negotiates on, and its outcome (fold or defer) is computed from the wire.
 */
import type { SteerMechanism } from '../../../../common/agent-inputs';
import type { AgentProtocol } from '../../../../common/agents';

/** The parsed capability: the mechanism to use and, in words, what advertised it. */
export interface SteerCapability {
  readonly mechanism: SteerMechanism;
  /** What the agent advertised (or why nothing counts), for the badge and the audit. */
  readonly basis: string;
  /** Every steer primitive the answer advertised, in precedence order (diagnostics). */
  readonly advertised: readonly SteerMechanism[];
}

/** No steer primitive: queue behaviour only. */
export const NO_STEER = (basis: string): SteerCapability => ({
  mechanism: 'none',
  basis,
  advertised: [],
});

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' &&
  value !== null &&
  !Array.isArray(value) &&
  (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null);

/** An own property of a plain object, or undefined (never an inherited one). */
const own = (value: unknown, key: string): unknown =>
  isPlainObject(value) && Object.prototype.hasOwnProperty.call(value, key) ? value[key] : undefined;

/** Follows own properties of plain objects; undefined as soon as one step is missing or not an object. */
const path = (value: unknown, ...keys: string[]): unknown =>
  keys.reduce<unknown>((at, key) => own(at, key), value);

/** Parses the steer capability of an ACP agent from its `initialize` result, fail closed. */
export function parseAcpSteerCapability(initializeResult: unknown): SteerCapability {
  if (!isPlainObject(initializeResult)) return NO_STEER('the initialize answer is not an object');
  const advertised: SteerMechanism[] = [];
  if (
    path(initializeResult, 'agentCapabilities', '_meta', 'claudeCode', 'promptQueueing') === true
  ) {
    advertised.push('concurrent-prompt');
  }
  if (path(initializeResult, '_meta', 'steering', 'supported') === true)
    advertised.push('session-steering');
  if (advertised.length === 0) return NO_STEER('the agent advertised no mid-turn input');
  const mechanism = advertised[0];
  const basis =
    mechanism === 'concurrent-prompt'
      ? 'the agent accepts a prompt while one is in flight (promptQueueing)'
      : 'the agent accepts _session/steering (steering.supported)';
  return { mechanism, basis, advertised };
}

/** Parses the steer capability of a Codex app-server from its `initialize` result, fail closed. */
export function parseAppServerSteerCapability(initializeResult: unknown): SteerCapability {
  if (typeof own(initializeResult, 'userAgent') !== 'string') {
    return NO_STEER('the app-server initialize answer is malformed');
  }
  return {
    mechanism: 'turn-steer',
    basis: 'the app-server protocol steers the active turn (turn/steer)',
    advertised: ['turn-steer'],
  };
}

/** The steer capability for a protocol's `initialize` result. */
export function parseSteerCapability(
  protocol: AgentProtocol,
  initializeResult: unknown,
): SteerCapability {
  return protocol === 'acp'
    ? parseAcpSteerCapability(initializeResult)
    : protocol === 'codex-app-server'
      ? parseAppServerSteerCapability(initializeResult)
      : NO_STEER('unknown protocol');
}
