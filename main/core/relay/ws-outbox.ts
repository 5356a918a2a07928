/**
 * The sending side of one WS connection: control frames go out at once (after any event frames
 * queued earlier, so the consumer sees frames in send order); event frames of one turn reach the
 * socket as one buffer at the end of the turn, and frames that come faster than one turn every
 * `COALESCE_MS` wait for the next of those writes (a hook at a time, each in its own turn, would
 * otherwise cost the daemon one socket write and the consumer one wake-up per event), except an
 * event someone waits on (`awaited`: a command's outcome, a request for attention), which goes
 * at the end of its turn with whatever waits before it; replay waits for the socket to drain.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { corkForTurn } from './corker';
import { joinForTurn } from './turn-join';

/**
 * At most one write of event frames per this many ms while they keep coming; a live frame waits at
 * most twice this beyond its turn. An event after a quiet moment goes out at the end of its turn.
 */
export const COALESCE_MS = 2;

/**
 * Whether an event of `type` is one an operator or a controller waits on, so it never waits for a
 * coalesced write: the outcomes of a command (`control.*`, its ack within AEP-0004's window) and
 * requests for attention and their answers (`attention.*`).
 */
export const awaited = (type: string): boolean =>
  type.startsWith('control.') || type.startsWith('attention.');

/** The outgoing queue and drain waiting of one socket. */
export class WsOutbox {
  private outbox: Buffer[] = [];
  private outboxBytes = 0;
  private flushQueued = false;
  /** When the last write of event frames was made (performance.now()). */
  private lastFlushAt = -Infinity;
  private flushTimer: NodeJS.Timeout | undefined;
  private drainWaiters: (() => void)[] = [];
  private drainTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly ws: WebSocket,
    private readonly softBytes: number,
    private readonly isClosed: () => boolean,
  ) {}

  /** Bytes queued toward the peer and not yet written to the socket. */
  bufferedBytes(): number {
    return this.ws.bufferedAmount + this.outboxBytes;
  }

  /** Sends a text frame now (event frames queued earlier in the turn go first). */
  sendText(text: string): void {
    if (this.ws.readyState !== this.ws.OPEN) return;
    this.flush();
    corkForTurn(this.socket());
    this.ws.send(text);
  }

  /**
   * Queues a pre-built text frame; every frame queued in one turn reaches the socket in one write
   * (one buffer, one syscall) at the end of the turn, instead of one stream write per event. Safe
   * beside ws's own sends because the relay never compresses or fragments (ws writes every frame
   * whole and synchronously) and `sendText` flushes this queue before ws writes anything.
   */
  sendFrame(frame: Buffer, now = false): void {
    if (this.isClosed() || this.ws.readyState !== this.ws.OPEN) return;
    this.outbox.push(frame);
    this.outboxBytes += frame.length;
    // A turn at least COALESCE_MS after the last write writes at its end; until then frames wait
    // for such a turn, or for the timer when none comes (it never wakes the loop while they flow).
    // A frame sent `now` goes at the end of its turn, with the ones waiting before it.
    const since = performance.now() - this.lastFlushAt;
    if (now || since >= COALESCE_MS) {
      if (this.flushQueued && this.flushTimer === undefined) return;
      this.flushQueued = true;
      process.nextTick(this.flush);
      return;
    }
    if (this.flushQueued) return;
    this.flushQueued = true;
    this.flushTimer = setTimeout(this.flush, 2 * COALESCE_MS - since);
    this.flushTimer.unref();
  }

  /** Writes the queued event frames now. */
  readonly flush = (): void => {
    this.flushQueued = false;
    if (this.flushTimer !== undefined) {
      clearTimeout(this.flushTimer);
      this.flushTimer = undefined;
    }
    if (this.outboxBytes === 0) return;
    this.lastFlushAt = performance.now();
    const frames = this.outbox;
    const bytes = this.outboxBytes;
    this.outbox = [];
    this.outboxBytes = 0;
    if (this.ws.readyState !== this.ws.OPEN) return;
    const socket = this.socket();
    if (!socket || socket.destroyed) return;
    socket.write(joinForTurn(frames, bytes));
  };

  /** Resolves once the socket's buffer fell below the soft mark, or the connection closed. */
  drained(): Promise<void> {
    // Hand the queued frames to the socket first, so waiting measures what really is unsent.
    this.flush();
    if (this.isClosed() || this.ws.bufferedAmount < this.softBytes) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.drainWaiters.push(resolve);
      // ws has no drain event of its own; poll the buffered amount only while a replay waits.
      this.drainTimer ??= setInterval(() => this.checkDrain(), 5);
    });
  }

  /** Wakes every drain waiter (the connection closed). */
  wake(): void {
    if (this.drainTimer !== undefined) {
      clearInterval(this.drainTimer);
      this.drainTimer = undefined;
    }
    const waiters = this.drainWaiters;
    this.drainWaiters = [];
    for (const w of waiters) w();
  }

  private checkDrain(): void {
    if (this.drainWaiters.length === 0) return;
    if (this.isClosed() || this.ws.bufferedAmount < this.softBytes / 2) this.wake();
  }

  private socket(): Socket | undefined {
    return (this.ws as unknown as { _socket?: Socket })._socket;
  }
}
