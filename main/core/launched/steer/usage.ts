/**
 * Usage attribution across a steer boundary. The agent reports usage on one prompt's settlement
 * (the Claude bridge's early predecessor settlement carries all zeros, the real figures land on
 * the successor); usage is recorded once, against the prompt the agent reported it on, and never
 * counted twice however many settlements, replays or retries arrive.
 */

/** Token counts as an ACP `session/prompt` result reports them (`usage`), numbers only. */
export type Usage = Readonly<Record<string, number>>;

/** The numeric own fields of a wire `usage` object, or null when there is none to read. */
export function readUsage(value: unknown): Usage | null {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return null;
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'number' && Number.isFinite(v) && v >= 0) out[key] = v;
  }
  return Object.keys(out).length === 0 ? null : out;
}

/** True only for a usage object that was reported and is all zeros (the early fold settlement). */
export const isZeroUsage = (usage: Usage | null): boolean =>
  usage !== null && Object.values(usage).every((v) => v === 0);

/** One recorded figure: which prompt reported it, the run it counts toward. */
export interface UsageEntry {
  readonly reportedOn: string;
  readonly run: string;
  readonly usage: Usage;
}

/** Records each prompt's reported usage once; sums per run and per session. */
export class UsageLedger {
  private readonly entries = new Map<string, UsageEntry>();

  /**
   * Records `usage` reported on prompt `reportedOn` toward `run`. Returns false (and records
   * nothing) when that prompt's usage was already recorded, or when there is nothing to count.
   */
  record(reportedOn: string, run: string, usage: Usage | null): boolean {
    if (usage === null || isZeroUsage(usage) || this.entries.has(reportedOn)) return false;
    this.entries.set(reportedOn, { reportedOn, run, usage });
    return true;
  }

  /** The recorded entries, in recording order. */
  all(): readonly UsageEntry[] {
    return [...this.entries.values()];
  }

  /** The sum of every recorded figure, optionally for one run. */
  total(run?: string): Usage {
    const sum: Record<string, number> = {};
    for (const entry of this.entries.values()) {
      if (run !== undefined && entry.run !== run) continue;
      for (const [key, v] of Object.entries(entry.usage)) sum[key] = (sum[key] ?? 0) + v;
    }
    return sum;
  }
}
