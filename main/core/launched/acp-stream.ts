/** Adapts a LineChannel to the ACP SDK's `Stream` (web streams of JSON-RPC message objects). */
import type { AnyMessage, Stream } from '@agentclientprotocol/sdk';
import type { LineChannel } from './line-channel';

/**
 * The SDK stream over our framing: bad lines were already logged and skipped by the channel.
 * `intercept` sees every incoming message first; returning true keeps it from the SDK (the host
 * takes `session/update` verbatim this way, before any schema validation could drop it).
 */
export function acpStream(channel: LineChannel, intercept?: (message: Record<string, unknown>) => boolean): Stream {
  let detach: (() => void) | null = null;
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      detach = channel.onMessage((m) => {
        if (intercept?.(m) === true) return;
        controller.enqueue(m as unknown as AnyMessage);
      });
      channel.onClose(() => {
        try {
          controller.close();
        } catch {
          // Already closed.
        }
      });
    },
    cancel() {
      detach?.();
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      channel.send(message as unknown as Record<string, unknown>);
    },
  });
  return { readable, writable };
}
