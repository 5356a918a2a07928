/** GET /api/sessions/history against a real daemon: order, pages on position boundaries, retention, bad queries. */
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryPage } from '../../../common/api';
import { makeEvent, postEvents, startTestDaemon, type TestDaemon } from '../relay/harness';

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

const history = async (query: Record<string, string>): Promise<{ status: number; json: unknown }> => {
  const res = await fetch(`${d!.url}/api/sessions/history?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${d!.tokens.operator}` },
  });
  return { status: res.status, json: await res.json() };
};

describe('GET /api/sessions/history', () => {
  it("returns one session's stored events in order, as stored, and only that session's", async () => {
    d = await startTestDaemon();
    const mine = [1, 2, 3].map((seq) => makeEvent({ session: 'h1', seq, capture: 'redacted', data: { message: `step ${seq}`, phase: 'work' } }));
    const other = makeEvent({ session: 'h2', seq: 1 });
    expect((await postEvents(d.url, d.tokens.hook, [mine[0], other, mine[1], mine[2]])).status).toBe(202);
    const { status, json } = await history({ session: 'h1' });
    expect(status).toBe(200);
    const page = json as HistoryPage;
    expect(page.session).toBe('h1');
    expect(page.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(page.events[0]).toEqual(mine[0]);
    expect(page.next).toBeNull();
    expect(page.exhausted).toBeUndefined();
    expect(((await history({ session: 'nobody' })).json as HistoryPage).events).toEqual([]);
  });

  it('pages by limit and resumes exactly after `next`, nothing lost or repeated', async () => {
    d = await startTestDaemon();
    await postEvents(d.url, d.tokens.hook, Array.from({ length: 25 }, (_, i) => makeEvent({ session: 'p', seq: i + 1 })));
    const seen: number[] = [];
    let query: Record<string, string> = { session: 'p', limit: '10' };
    let pages = 0;
    for (;;) {
      const page = (await history(query)).json as HistoryPage;
      pages++;
      seen.push(...page.events.map((e) => e.seq!));
      if (!page.next) break;
      query = { session: 'p', limit: '10', afterEpoch: String(page.next.epoch), afterSeq: String(page.next.seq) };
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
  });

  it('says where retained history begins once retention trimmed the start', async () => {
    d = await startTestDaemon({ maxEventsPerSession: 3 });
    await postEvents(d.url, d.tokens.hook, Array.from({ length: 6 }, (_, i) => makeEvent({ session: 'r', seq: i + 1 })));
    const page = (await history({ session: 'r' })).json as HistoryPage;
    expect(page.events.map((e) => e.seq)).toEqual([4, 5, 6]);
    expect(page.exhausted).toEqual({ epoch: 0, seq: 4 });
    const after = (await history({ session: 'r', afterEpoch: '0', afterSeq: '4' })).json as HistoryPage;
    expect(after.events.map((e) => e.seq)).toEqual([5, 6]);
    expect(after.exhausted).toBeUndefined();
  });

  it('answers the newest events with `tail`, across epochs, and says whether older ones are held', async () => {
    d = await startTestDaemon({ maxEventsPerSession: 30 });
    const first = Array.from({ length: 20 }, (_, i) => makeEvent({ session: 't', epoch: 0, seq: i + 1 }));
    const second = Array.from({ length: 5 }, (_, i) => makeEvent({ session: 't', epoch: 1, seq: i + 1 }));
    expect((await postEvents(d.url, d.tokens.hook, [...first, ...second, makeEvent({ session: 'u', seq: 1 })])).status).toBe(202);
    const tail = (await history({ session: 't', tail: '7' })).json as HistoryPage;
    expect(tail.events.map((e) => `${e.epoch}:${e.seq}`)).toEqual(['0:19', '0:20', '1:1', '1:2', '1:3', '1:4', '1:5']);
    expect(tail.events[6]).toEqual(second[4]);
    expect(tail.earlier).toBe(true);
    expect(tail.next).toBeNull();
    const whole = (await history({ session: 't', tail: '100' })).json as HistoryPage;
    expect(whole.events).toHaveLength(25);
    expect(whole.earlier).toBe(false);
    expect(whole.exhausted).toBeUndefined();
    const none = (await history({ session: 'nobody', tail: '5' })).json as HistoryPage;
    expect(none).toEqual({ session: 'nobody', events: [], next: null, earlier: false });
  });

  it('says where a tail that holds the whole trimmed history begins', async () => {
    d = await startTestDaemon({ maxEventsPerSession: 3 });
    await postEvents(d.url, d.tokens.hook, Array.from({ length: 6 }, (_, i) => makeEvent({ session: 'r', seq: i + 1 })));
    const all = (await history({ session: 'r', tail: '10' })).json as HistoryPage;
    expect(all.events.map((e) => e.seq)).toEqual([4, 5, 6]);
    expect(all.earlier).toBe(false);
    expect(all.exhausted).toEqual({ epoch: 0, seq: 4 });
    const newest = (await history({ session: 'r', tail: '2' })).json as HistoryPage;
    expect(newest.events.map((e) => e.seq)).toEqual([5, 6]);
    expect(newest.earlier).toBe(true);
    expect(newest.exhausted).toBeUndefined();
  });

  it('refuses bad queries with 400 and the reason, and tokenless calls with 401', async () => {
    d = await startTestDaemon();
    const bad: [Record<string, string>, RegExp][] = [
      [{}, /session must be a non-empty session id/],
      [{ session: 's', afterEpoch: '0' }, /afterEpoch and afterSeq go together/],
      [{ session: 's', afterEpoch: '-1', afterSeq: '2' }, /integers of at least 0/],
      [{ session: 's', limit: '0' }, /limit must be an integer from 1 to 10000/],
      [{ session: 's', limit: '10001' }, /limit must be an integer from 1 to 10000/],
      [{ session: 's', tail: '0' }, /tail must be an integer from 1 to 10000/],
      [{ session: 's', tail: 'x' }, /tail must be an integer from 1 to 10000/],
      [{ session: 's', tail: '5', limit: '5' }, /tail goes without afterEpoch\/afterSeq and limit/],
      [{ session: 's', tail: '5', afterEpoch: '0', afterSeq: '1' }, /tail goes without/],
    ];
    for (const [query, reason] of bad) {
      const { status, json } = await history(query);
      expect(status, JSON.stringify(query)).toBe(400);
      expect(JSON.stringify(json)).toMatch(reason);
    }
    const anonymous = await fetch(`${d.url}/api/sessions/history?session=s`);
    expect(anonymous.status).toBe(401);
  });
});
