/** Which queued instructions fit into one hook reply: arrival order, within the vendor's cap, never truncated. */

/** The separator between instructions delivered together (a paragraph break the model reads as one). */
export const INSTRUCTION_SEPARATOR = '\n\n';

/** The instructions taken for one reply and the text they make. */
export interface DeliveryPlan<T> {
  readonly take: readonly T[];
  readonly text: string;
}

/**
 * Takes the longest FIFO prefix of `queue` whose joined text fits in `cap` characters. What does not
 * fit waits for the next eligible moment; the order is never changed to squeeze a later one in.
 * Returns null when nothing fits (an empty queue).
 */
export function planDelivery<T extends { readonly text: string }>(queue: readonly T[], cap: number): DeliveryPlan<T> | null {
  const take: T[] = [];
  let length = 0;
  for (const item of queue) {
    const added = (take.length === 0 ? 0 : INSTRUCTION_SEPARATOR.length) + item.text.length;
    if (length + added > cap) break;
    take.push(item);
    length += added;
  }
  if (take.length === 0) return null;
  return { take, text: take.map((i) => i.text).join(INSTRUCTION_SEPARATOR) };
}
