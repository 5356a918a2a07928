/** `Relay.watch`: the public in-process live API the desktop shell uses (no Subscription, no fake transport). */
import { afterEach, describe, expect, it } from 'vitest';
import type { AepEvent } from '../../../common/aep/envelope';
import { parseFilter } from '../../../main/core/aep/filter';
import { watchRelay } from '../../../main/electron/relay-watch';
import { makeEvent, postEvents, startTestDaemon, type TestDaemon } from './harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

describe('Relay.watch', () => {
  it('calls back for matching live events; a throwing watcher disturbs no one; removal stops it', async () => {
    d = await startTestDaemon();
    const relay = d.context.relay;
    const filter = parseFilter({ type: 'attention.*' });
    if (!filter.ok) throw new Error(filter.error.message);
    const seen: string[] = [];
    relay.watch(filter.value, () => {
      throw new Error('a broken listener');
    });
    const stop = relay.watch(filter.value, (e: AepEvent) => void seen.push(e.type));
    const viaShell: string[] = [];
    const stopShell = watchRelay(relay, { session: 'w' }, (e) => void viaShell.push(e.type));
    const posted = await postEvents(d.url, d.tokens.hook, [
      makeEvent({ session: 'w', type: 'progress.status' }),
      makeEvent({ session: 'w', type: 'attention.requested', capture: 'none' }),
    ]);
    expect(posted.status).toBe(202);
    stop();
    stopShell();
    await postEvents(
      d.url,
      d.tokens.hook,
      makeEvent({ session: 'w', type: 'attention.requested', capture: 'none' }),
    );
    expect(seen).toEqual(['attention.requested']);
    expect(viaShell).toEqual(['progress.status', 'attention.requested']);
  });
});
