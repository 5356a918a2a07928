/**
 * Joins the messages one connection queued in one event-loop turn into the single buffer it writes.
 * Subscribers with the same filter and ceiling queue the very same message buffers (built once per
 * event, see fanout-item.ts) in the same order, so the join of the first connection is reused by
 * every other one that flushes the same list in this turn: one copy per turn, not per subscriber.
 */

let last: { parts: readonly Buffer[]; joined: Buffer } | null = null;

/** `Buffer.concat(parts, bytes)`, shared with the previous identical join of this turn. */
export function joinForTurn(parts: readonly Buffer[], bytes: number): Buffer {
  if (parts.length === 1) return parts[0];
  const prev = last;
  if (prev !== null && prev.joined.length === bytes && prev.parts.length === parts.length) {
    let same = true;
    for (let i = 0; i < parts.length && same; i++) same = parts[i] === prev.parts[i];
    if (same) return prev.joined;
  }
  const joined = Buffer.concat(parts as Buffer[], bytes);
  // Held only until the turn ends, so a burst never keeps its bytes alive.
  if (last === null) setImmediate(() => (last = null));
  last = { parts, joined };
  return joined;
}
