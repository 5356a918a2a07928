/**
 * Builds an unmasked WebSocket text frame (RFC 6455 §5.2) once per fanned-out event, so the same
 * bytes can be written to every subscriber's socket instead of framing (and UTF-8 encoding) the
 * event again per consumer.
 */

/** The complete server-to-client text frame carrying `text`. */
export function textFrame(text: string): Buffer {
  // The text is encoded straight behind the header: one buffer, no copy of the payload.
  const n = Buffer.byteLength(text, 'utf8');
  const headerLength = n < 126 ? 2 : n < 65_536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(headerLength + n);
  frame[0] = 0x81; // FIN + opcode 1 (text)
  if (n < 126) {
    frame[1] = n;
  } else if (n < 65_536) {
    frame[1] = 126;
    frame.writeUInt16BE(n, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(Math.floor(n / 2 ** 32), 2);
    frame.writeUInt32BE(n >>> 0, 6);
  }
  frame.write(text, headerLength, 'utf8');
  return frame;
}
