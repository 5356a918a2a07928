/**
 * Coalesces the many small writes of one event-loop turn into one socket write: the first write
 * of a turn corks the stream and the end of the turn uncorks it. Fan-out to a hundred consumers
 * then costs one syscall per consumer per turn instead of one per event.
 */

interface Corkable {
  cork(): void;
  uncork(): void;
}

const corked = new WeakSet<Corkable>();

/** Corks `stream` until the end of the current turn (idempotent within a turn). */
export function corkForTurn(stream: Corkable | undefined | null): void {
  if (!stream || corked.has(stream)) return;
  corked.add(stream);
  stream.cork();
  process.nextTick(() => {
    corked.delete(stream);
    stream.uncork();
  });
}
