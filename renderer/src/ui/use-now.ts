/** A clock for relative times, shared by every subscriber so they all tick together. */
import { useEffect, useState, useSyncExternalStore } from 'react';

let now = Date.now();
const listeners = new Set<() => void>();
let timer: ReturnType<typeof setInterval> | null = null;

function subscribe(listener: () => void): () => void {
  listeners.add(listener);
  if (!timer) {
    timer = setInterval(() => {
      now = Date.now();
      for (const l of listeners) l();
    }, 5_000);
  }
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer) {
      clearInterval(timer);
      timer = null;
    }
  };
}

/** Current time in ms, refreshed every few seconds. */
export function useNow(): number {
  return useSyncExternalStore(subscribe, () => now);
}

/** Current time in ms, refreshed every second while the caller is mounted (countdowns). */
export function useSecondClock(): number {
  const [t, setT] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setT(Date.now()), 1_000);
    return () => clearInterval(timer);
  }, []);
  return t;
}
