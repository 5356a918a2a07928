import type { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import WebSocket, { WebSocketServer } from 'ws';
import { textFrame } from '../../../main/core/relay/ws-frame';

describe('textFrame', () => {
  it('frames text of every length class so a real WebSocket client reads it back', async () => {
    const texts = [0, 125, 126, 65_535, 65_536, 200_000].map(
      (length) => 'é'.repeat(Math.floor(length / 2)) + 'x'.repeat(length % 2),
    );
    const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    server.on('connection', (ws) => {
      const socket = (ws as unknown as { _socket: Socket })._socket;
      for (const text of texts) socket.write(textFrame(text));
    });
    const port = (server.address() as { port: number }).port;
    const client = new WebSocket(`ws://127.0.0.1:${port}`);
    const received: string[] = [];
    await new Promise<void>((resolve, reject) => {
      client.on('message', (data, isBinary) => {
        if (isBinary) reject(new Error('binary frame'));
        received.push(data.toString());
        if (received.length === texts.length) resolve();
      });
      client.on('error', reject);
    });
    expect(received).toEqual(texts);
    client.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
});
