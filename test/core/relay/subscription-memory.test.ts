/**
 * A long-lived subscription holds positions, not events: after delivering events of many
 * sessions it reports each session's last position, and the delivered events themselves can be
 * collected (WeakRef plus a full GC).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { parseFilter } from '../../../main/core/aep/filter';
import { FanoutItem } from '../../../main/core/relay/fanout-item';
import { Subscription, type DeliveryTransport } from '../../../main/core/relay/subscription';
import { EventStore } from '../../../main/core/store/event-store';
import { openDb } from '../../../main/core/store/open-db';
import { event, tempDir } from '../store/temp-db';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const t = tempDir();
const db = openDb(t.file());
afterAll(() => {
  db.close();
  t.cleanup();
});

describe('Subscription memory', () => {
  it('keeps the last delivered position per session without keeping the delivered events', async () => {
    let sent = 0;
    const transport: DeliveryTransport = {
      bufferedBytes: () => 0,
      sendEvent: () => void sent++,
      sendReplayExhausted: () => undefined,
      drained: () => Promise.resolve(),
      overflow: () => undefined,
      isClosed: () => false,
    };
    const filter = parseFilter({});
    if (!filter.ok) throw new Error(filter.error.message);
    const sub = new Subscription({ id: 'live', filter: filter.value }, transport, new EventStore(db, { maxEventsPerSession: 100 }));
    await sub.start({ live: true });
    const refs: WeakRef<AepEvent>[] = [];
    const deliver = (i: number): void => {
      const e = event({ session: `s${i % 50}`, seq: Math.floor(i / 50) + 1, epoch: 2, data: { blob: 'x'.repeat(10_000) } });
      if (i >= 4_950) refs.push(new WeakRef(e));
      sub.offer(new FanoutItem(e, JSON.stringify(e)));
    };
    for (let i = 0; i < 5_000; i++) deliver(i);
    expect(sent).toBe(5_000);
    const positions = sub.delivered().sort((a, b) => a.session.localeCompare(b.session, 'en', { numeric: true }));
    expect(positions).toHaveLength(50);
    expect(positions[0]).toEqual({ session: 's0', epoch: 2, seq: 100 });
    expect(positions[49]).toEqual({ session: 's49', epoch: 2, seq: 100 });
    await new Promise((r) => setImmediate(r));
    gc();
    gc();
    // The last event of every session was delivered last; none of them is held any more.
    expect(refs.filter((r) => r.deref() !== undefined)).toHaveLength(0);
  });
});
