/** Reconnect delays: exponential with full jitter, capped, reset after a healthy connection. */

/** Delay before reconnect attempt `attempt` (0-based), in milliseconds. */
export function backoffDelay(attempt: number, random: () => number = Math.random, baseMs = 250, capMs = 10_000): number {
  const ceiling = Math.min(capMs, baseMs * 2 ** Math.min(attempt, 16));
  // Half fixed, half jittered: never zero (no hot loop), never synchronised across windows.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}
