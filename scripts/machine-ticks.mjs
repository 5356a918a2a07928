// The machine's CPU time counters from the first line of /proc/stat (all cores, clock ticks), for
// the bench runner and the bench sections alike; null where there is no /proc/stat. On a virtual
// machine the hypervisor's steal is what makes two runs of a bench differ.

import { readFileSync } from 'node:fs';

/** `{ total, busy, steal }` now (busy: neither idle, waiting on I/O nor stolen), or null. */
export function machineTicks() {
  try {
    // user nice system idle iowait irq softirq steal (guest time is counted in user already).
    const cpu = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1, 9).map(Number);
    const total = cpu.reduce((a, b) => a + b, 0);
    return { total, busy: total - cpu[3] - cpu[4] - (cpu[7] ?? 0), steal: cpu[7] ?? 0 };
  } catch {
    return null;
  }
}

/** The share (%, one decimal) of the machine's CPU time counted in `key` between two reads; NaN without both. */
export function tickShare(before, after, key) {
  if (before === null || after === null || after.total <= before.total) return NaN;
  return Number(((100 * (after[key] - before[key])) / (after.total - before.total)).toFixed(1));
}
