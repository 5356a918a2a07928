/**
 * The console's AEP socket sends its own frames (pong, ping) only while the socket is open: a ping
 * can still arrive, and the ping timer still fire, while the socket closes, and a send then makes
 * the browser log "WebSocket is already in CLOSING or CLOSED state." as an error in the page
 * (console.test.ts fails on any page error). Runs the socket over a scripted stand-in.
 */
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { AepSocket } from '../../renderer/src/api/aep-socket';

// The socket reads WebSocket's state constants; Node 20 has no global WebSocket.
const states = { CONNECTING: 0, OPEN: 1, CLOSING: 2, CLOSED: 3 };
const hadWebSocket = 'WebSocket' in globalThis;
if (!hadWebSocket) (globalThis as Record<string, unknown>).WebSocket = states;

/** A scripted socket: records what is sent, and a send while not open counts as the page's error. */
class ScriptedSocket {
  readyState = states.CONNECTING;
  sent: string[] = [];
  sendsWhileClosing = 0;
  onopen: (() => void) | null = null;
  onmessage: ((m: { data: string }) => void) | null = null;
  onclose: ((c: { code: number; reason: string }) => void) | null = null;
  onerror: (() => void) | null = null;
  send(text: string): void {
    if (this.readyState !== states.OPEN) this.sendsWhileClosing++;
    else this.sent.push(text);
  }
  close(): void {
    this.readyState = states.CLOSING;
  }
  receive(frame: Record<string, unknown>): void {
    this.onmessage?.({ data: JSON.stringify(frame) });
  }
}

afterEach(() => vi.useRealTimers());
afterAll(() => {
  if (!hadWebSocket) delete (globalThis as Record<string, unknown>).WebSocket;
});

describe('console socket while it closes', () => {
  it('answers a ping with a pong while open, and sends neither pong nor ping once the socket is closing', () => {
    vi.useFakeTimers();
    const sockets: ScriptedSocket[] = [];
    const socket = new AepSocket({
      baseUrl: 'http://127.0.0.1:1',
      token: () => 'token',
      instance: 'test',
      handlers: { event: () => {}, status: () => {} },
      createSocket: () => {
        const s = new ScriptedSocket();
        sockets.push(s);
        return s as unknown as WebSocket;
      },
    });
    socket.start();
    const ws = sockets[0];
    ws.readyState = states.OPEN;
    ws.onopen?.();
    ws.receive({ type: 'hello', versions: ['0.1'], role: 'relay' });
    ws.receive({ type: 'ping', t: 1 });
    expect(ws.sent.map((t) => JSON.parse(t).type)).toEqual(['hello', 'pong']);

    // The daemon starts closing the connection: its close frame is on the way, a ping came first.
    ws.readyState = states.CLOSING;
    ws.receive({ type: 'ping', t: 2 });
    // The ping timer fires before the close completes.
    vi.advanceTimersByTime(30_000);
    expect(ws.sendsWhileClosing).toBe(0);
    expect(ws.sent).toHaveLength(2);
    socket.stop();
  });
});
