/**
 * Seen-by-agent receipts of Codex app-server `turn/steer`: after a steer was accepted (the same
 * turn id back), the agent shows it took the text in with a `userMessage` item on that turn
 * (`item/started`, then `item/completed`, same item id). The first `userMessage` of a turn is the
 * turn's own input (`turn/start`); every later one carries a steer. Receipts are read from the
 * wire only: an item is matched to a steer by turn id and exact text, each item at most once, and
 * a steer whose turn ended without one gets none (null), never a guess.
 */
import { userMessageText } from './native-outcome';

/** The receipt: the turn that took the steer in and the agent's id of the item carrying it. */
export interface SteerReceipt {
  readonly turnId: string;
  readonly itemId: string | null;
}

interface Taken {
  readonly turnId: string;
  readonly text: string;
  readonly itemId: string | null;
}

interface Waiter {
  readonly turnId: string;
  readonly text: string;
  readonly resolve: (receipt: SteerReceipt | null) => void;
}

/** Steer items taken in but not yet claimed are kept up to this many (the oldest go first). */
const MAX_TAKEN = 64;
/** Ended turns remembered, so a late question about one answers null at once. */
const MAX_ENDED = 32;

const own = (value: unknown, key: string): unknown =>
  typeof value === 'object' && value !== null && Object.prototype.hasOwnProperty.call(value, key)
    ? (value as Record<string, unknown>)[key]
    : undefined;

/** The receipts of one app-server connection. */
export class SteerReceipts {
  /** Per live turn: the `userMessage` item ids already read (the turn's own input first). */
  private readonly items = new Map<string, Set<string | null>>();
  private readonly taken: Taken[] = [];
  private readonly waiting: Waiter[] = [];
  private readonly ended: string[] = [];
  private closed = false;

  /** Reads one app-server notification. */
  observe(method: string, params: unknown): void {
    if (method !== 'item/started' && method !== 'item/completed') return;
    const turnId = own(params, 'turnId');
    const item = own(params, 'item');
    const text = userMessageText(item);
    if (typeof turnId !== 'string' || text === null) return;
    const rawId = own(item, 'id');
    const itemId = typeof rawId === 'string' && rawId !== '' ? rawId : null;
    // Without an item id only `item/started` counts (its `item/completed` cannot be told apart).
    if (itemId === null && method !== 'item/started') return;
    let seen = this.items.get(turnId);
    if (seen === undefined) {
      seen = new Set();
      this.items.set(turnId, seen);
      seen.add(itemId);
      return; // the turn's own input
    }
    if (itemId !== null && seen.has(itemId)) return;
    seen.add(itemId);
    const at = this.waiting.findIndex((w) => w.turnId === turnId && w.text === text);
    if (at >= 0) {
      this.waiting.splice(at, 1)[0].resolve({ turnId, itemId });
      return;
    }
    this.taken.push({ turnId, text, itemId });
    if (this.taken.length > MAX_TAKEN) this.taken.shift();
  }

  /** The turn completed: steers of it still without a receipt get none. */
  turnEnded(turnId: string): void {
    this.items.delete(turnId);
    this.ended.push(turnId);
    if (this.ended.length > MAX_ENDED) this.ended.shift();
    for (let i = this.waiting.length - 1; i >= 0; i--) {
      if (this.waiting[i].turnId === turnId) this.waiting.splice(i, 1)[0].resolve(null);
    }
  }

  /** The receipt of a steer of `text` accepted into `turnId`: now, once it arrives, or null. */
  receipt(turnId: string, text: string): Promise<SteerReceipt | null> {
    const at = this.taken.findIndex((t) => t.turnId === turnId && t.text === text);
    if (at >= 0) {
      const taken = this.taken.splice(at, 1)[0];
      return Promise.resolve({ turnId, itemId: taken.itemId });
    }
    if (this.closed || this.ended.includes(turnId)) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push({ turnId, text, resolve }));
  }

  /** The connection is gone: nothing more arrives. */
  close(): void {
    this.closed = true;
    for (const w of this.waiting.splice(0)) w.resolve(null);
  }
}
