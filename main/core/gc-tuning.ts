/**
 * The daemon's garbage collector. The hook path allocates steadily in small, short-lived objects
 * (about 15 KB per hook), so V8 runs a young-generation collection (a scavenge) every few hundred
 * hooks. By default V8 splits each scavenge over helper threads; on the few cores the daemon shares
 * with the agents it watches, waking those threads cost more CPU than the split saved: about 4 %
 * of the daemon's CPU per hook at concurrency 16 and 2.5 % at concurrency 1 (interleaved A/B on a
 * 2-core machine, docs/ARCHITECTURE.md). A scavenge of the daemon's young generation takes a few
 * milliseconds either way. Old-generation marking and sweeping stay concurrent: they move work off
 * the main thread rather than add to it.
 *
 * V8 reads this flag at each scavenge, so setting it after start takes effect. `AEP_PARALLEL_SCAVENGE=1`
 * keeps V8's default (to compare, or on a machine where the split pays).
 */
import { setFlagsFromString } from 'node:v8';

/** The V8 flags the daemon sets for itself. */
export const DAEMON_V8_FLAGS: readonly string[] = ['--no-parallel-scavenge'];

/** Sets the daemon's V8 flags (see the top) unless `AEP_PARALLEL_SCAVENGE=1`; returns the flags set. */
export function tuneGarbageCollector(
  env: NodeJS.ProcessEnv = process.env,
  set: (flag: string) => void = setFlagsFromString,
): readonly string[] {
  if (env.AEP_PARALLEL_SCAVENGE === '1') return [];
  for (const flag of DAEMON_V8_FLAGS) set(flag);
  return DAEMON_V8_FLAGS;
}
