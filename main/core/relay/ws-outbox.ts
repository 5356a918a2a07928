/**
 * The sending side of one WS connection: control frames go out at once (after any event frames
 * queued earlier in the turn, so the consumer sees frames in send order); event frames of one turn
 * reach the socket as one buffer at the end of the turn; replay waits for the socket to drain.
 */
import type { Socket } from 'node:net';
import type { WebSocket } from 'ws';
import { corkForTurn } from './corker';
import { joinForTurn } from './turn-join';

/** The outgoing queue and drain waiting of one socket. */
export class WsOutbox {
  private outbox: Buffer[] = [];
  private outboxBytes = 0;
  private flushQueued = false;
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
  sendFrame(frame: Buffer): void {
    if (this.isClosed() || this.ws.readyState !== this.ws.OPEN) return;
    this.outbox.push(frame);
    this.outboxBytes += frame.length;
    if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(this.flush);
    }
  }

  /** Writes the queued event frames now. */
  readonly flush = (): void => {
    this.flushQueued = false;
    if (this.outboxBytes === 0) return;
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
