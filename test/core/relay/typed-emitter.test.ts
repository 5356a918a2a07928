import { afterEach, describe, expect, it } from 'vitest';
import { EmitError } from '../../../main/core/relay/emitter-link';
import { makeEvent, startTestDaemon, type TestDaemon } from './harness';

let d: TestDaemon;
afterEach(async () => {
  await d?.stop();
});

describe('typed in-process emitters', () => {
  it('admit their events after commit, checking only the values that came from outside', async () => {
    d = await startTestDaemon();
    const typed = d.context.relay.attachEmitter({ agent: 'typed', instance: 't', typed: true });
    const event = makeEvent({ session: 'typed-1' });
    await typed.emit([event]);
    expect([...d.context.eventStore.replay('typed-1', null)].map((s) => s.json)).toEqual([JSON.stringify(event)]);

    // A vendor-supplied session or subject is still bounded, free of control characters and non-empty.
    for (const bad of [{ session: 'a\nid: forged' }, { session: 'x'.repeat(600) }, { subject: '' }, { run: '' }]) {
      await expect(typed.emit(makeEvent(bad))).rejects.toBeInstanceOf(EmitError);
    }
    // Commands are never emitted, typed or not.
    await expect(typed.emit(makeEvent({ type: 'control.cancel' }))).rejects.toMatchObject({ code: 'invalid-event' });
    typed.close();
  });

  it('leave the full schema check to every other link', async () => {
    d = await startTestDaemon();
    const typed = d.context.relay.attachEmitter({ agent: 'typed', instance: 't', typed: true });
    const other = d.context.relay.attachEmitter({ agent: 'other', instance: 'o' });
    // A time that is no RFC 3339 date-time is a schema matter: the typed link does not look at it.
    await expect(other.emit(makeEvent({ session: 's', time: 'soon' }))).rejects.toBeInstanceOf(EmitError);
    await typed.emit(makeEvent({ session: 's', time: 'soon' }));
    expect([...d.context.eventStore.replay('s', null)]).toHaveLength(1);
    typed.close();
    other.close();
  });
});
