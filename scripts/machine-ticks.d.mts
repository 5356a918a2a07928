/** The machine's CPU time counters (all cores, clock ticks) from /proc/stat. */
export interface MachineTicks {
  readonly total: number;
  readonly busy: number;
  readonly steal: number;
}
export function machineTicks(): MachineTicks | null;
export function tickShare(before: MachineTicks | null, after: MachineTicks | null, key: 'busy' | 'steal'): number;
