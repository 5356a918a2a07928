import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import { COALESCE_MS, WsOutbox, awaited } from '../../../main/core/relay/ws-outbox';

/** A connection whose socket records what reaches it, one entry per write. */
function fakeConnection(): { ws: WebSocket; writes: string[] } {
  const writes: string[] = [];
  const socket = {
    destroyed: false,
    write: (bytes: Buffer) => writes.push(bytes.toString()),
    cork: () => {},
    uncork: () => {},
  };
  const ws = {
    OPEN: 1,
    readyState: 1,
    bufferedAmount: 0,
    _socket: socket,
    send: (text: string) => writes.push(`text:${text}`),
  };
  return { ws: ws as unknown as WebSocket, writes };
}

const endOfTurn = (): Promise<void> => new Promise((resolve) => process.nextTick(resolve));
const frame = (text: string): Buffer => Buffer.from(text);

/** An outbox that has just written frame 'a' (so the next frames come soon after a write). */
async function afterOneWrite(): Promise<{ ws: WebSocket; writes: string[]; out: WsOutbox }> {
  const { ws, writes } = fakeConnection();
  const out = new WsOutbox(ws, 1 << 20, () => false);
  out.sendFrame(frame('a'));
  await endOfTurn();
  return { ws, writes, out };
}

describe('WsOutbox', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('writes the event frames of a quiet moment at the end of their turn, and frames that keep coming in one write per COALESCE_MS', async () => {
    const { ws, writes } = fakeConnection();
    const out = new WsOutbox(ws, 1 << 20, () => false);
    out.sendFrame(frame('a'));
    out.sendFrame(frame('b'));
    await endOfTurn();
    expect(writes).toEqual(['ab']);
    // Turns soon after that write: their frames wait.
    vi.advanceTimersByTime(COALESCE_MS / 4);
    out.sendFrame(frame('c'));
    await endOfTurn();
    vi.advanceTimersByTime(COALESCE_MS / 4);
    out.sendFrame(frame('d'));
    await endOfTurn();
    expect(writes).toEqual(['ab']);
    // The first turn COALESCE_MS after the last write writes them all, at its end.
    vi.advanceTimersByTime(COALESCE_MS / 2);
    out.sendFrame(frame('e'));
    expect(writes).toEqual(['ab']);
    await endOfTurn();
    expect(writes).toEqual(['ab', 'cde']);
    // When no such turn comes, the timer writes them, at most 2 × COALESCE_MS after the last write.
    out.sendFrame(frame('f'));
    await endOfTurn();
    expect(writes).toEqual(['ab', 'cde']);
    vi.advanceTimersByTime(2 * COALESCE_MS);
    expect(writes).toEqual(['ab', 'cde', 'f']);
  });

  it('writes waiting event frames before a control frame, so the consumer reads them in send order', async () => {
    const { writes, out } = await afterOneWrite();
    out.sendFrame(frame('b'));
    out.sendText('ack');
    expect(writes).toEqual(['a', 'b', 'text:ack']);
    // Nothing is written twice when the timer comes.
    vi.advanceTimersByTime(4 * COALESCE_MS);
    await endOfTurn();
    expect(writes).toEqual(['a', 'b', 'text:ack']);
  });

  it('writes an event someone waits on at the end of its turn, with the frames waiting before it', async () => {
    const { writes, out } = await afterOneWrite();
    out.sendFrame(frame('b'));
    await endOfTurn();
    expect(writes).toEqual(['a']);
    out.sendFrame(frame('ack'), awaited('control.accepted'));
    await endOfTurn();
    expect(writes).toEqual(['a', 'back']);
    expect([
      awaited('control.rejected'),
      awaited('attention.requested'),
      awaited('tool.completed'),
    ]).toEqual([true, true, false]);
  });

  it('drops what waits when the connection closed meanwhile', async () => {
    const { ws, writes, out } = await afterOneWrite();
    out.sendFrame(frame('b'));
    (ws as unknown as { readyState: number }).readyState = 3;
    vi.advanceTimersByTime(4 * COALESCE_MS);
    expect(writes).toEqual(['a']);
  });
});
