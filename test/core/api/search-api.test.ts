/** GET /api/search against a real daemon: FTS5 over stored events, paging, session scope, retention, bad queries. */
import { afterEach, describe, expect, it } from 'vitest';
import type { SearchPage } from '../../../common/api';
import { makeEvent, postEvents, startTestDaemon, type TestDaemon } from '../relay/harness';

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

const status = (
  session: string,
  seq: number,
  message: string,
  extra: Record<string, unknown> = {},
) => makeEvent({ session, seq, capture: 'redacted', data: { message, phase: 'work' }, ...extra });

const search = async (
  query: Record<string, string>,
): Promise<{ status: number; json: unknown }> => {
  const res = await fetch(`${d!.url}/api/search?${new URLSearchParams(query)}`, {
    headers: { authorization: `Bearer ${d!.tokens.operator}` },
  });
  return { status: res.status, json: await res.json() };
};

describe('GET /api/search', () => {
  it('finds events by their text, newest first, with session, id, type, time and a marked snippet', async () => {
    d = await startTestDaemon();
    const a = status('sa', 1, 'running npm install in the workspace');
    const b = status('sb', 1, 'compiling the kernel module');
    const c = status('sa', 2, 'npm test passed with 12 suites');
    await postEvents(d.url, d.tokens.hook, [a, b, c]);
    const { status: code, json } = await search({ q: 'npm' });
    expect(code).toBe(200);
    const page = json as SearchPage;
    expect(page.hits.map((h) => h.id)).toEqual([c.id, a.id]);
    expect(page.hits[0]).toMatchObject({ session: 'sa', type: 'progress.status', time: c.time });
    expect(page.hits[0].snippet).toContain('[npm]');
    expect(page.next).toBeNull();
    const phrase = (await search({ q: '"kernel module"' })).json as SearchPage;
    expect(phrase.hits.map((h) => h.id)).toEqual([b.id]);
  });

  it('does not index digests or match the session id, and scopes to one session', async () => {
    d = await startTestDaemon();
    await postEvents(d.url, d.tokens.hook, [
      status('alpha', 1, 'deploy the service'),
      status('beta', 1, 'deploy the database'),
      status('beta', 2, 'alpha release notes'),
    ]);
    const scoped = (await search({ q: 'deploy', session: 'beta' })).json as SearchPage;
    expect(scoped.hits.map((h) => h.session)).toEqual(['beta']);
    // "alpha" is a session id: its session comes first (its first event), then the text of the
    // third event that says it.
    const alpha = (await search({ q: 'alpha' })).json as SearchPage;
    expect(alpha.hits.map((h) => h.session)).toEqual(['alpha', 'beta']);
    expect(alpha.hits[0].snippet).toBe('session [alpha]');
  });

  it('pages with a keyset cursor until next is null', async () => {
    d = await startTestDaemon();
    await postEvents(
      d.url,
      d.tokens.hook,
      Array.from({ length: 7 }, (_, i) => status('p', i + 1, `step ${i} of the build`)),
    );
    const ids: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: SearchPage = (
        await search({ q: 'build', limit: '3', ...(cursor === null ? {} : { cursor }) })
      ).json as SearchPage;
      expect(page.hits.length).toBeLessThanOrEqual(3);
      ids.push(...page.hits.map((h) => h.id));
      cursor = page.next;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(new Set(ids).size).toBe(7);
  });

  it('drops events from the index when retention trims them', async () => {
    d = await startTestDaemon({ maxEventsPerSession: 3 });
    await postEvents(
      d.url,
      d.tokens.hook,
      Array.from({ length: 6 }, (_, i) => status('r', i + 1, `marker${i} text`)),
    );
    expect(((await search({ q: 'marker0' })).json as SearchPage).hits).toHaveLength(0);
    expect(((await search({ q: 'marker5' })).json as SearchPage).hits).toHaveLength(1);
    const indexed = d.context.db.prepare('SELECT COUNT(*) AS n FROM events_fts').get() as {
      n: number;
    };
    expect(indexed.n).toBe(3);
  });

  it('searches what users type as text: hyphens, paths, flags, quotes and stray operators', async () => {
    d = await startTestDaemon();
    const probe = status('t1', 1, 'ran steer-probe twice');
    const ls = status('t1', 2, '$ ls -la src/app.ts');
    const ops = status('t2', 1, 'pick a AND b (then) NOT c');
    const other = status('t2', 2, 'steer the probe elsewhere');
    await postEvents(d.url, d.tokens.hook, [probe, ls, ops, other]);
    const ids = async (q: Record<string, string>) => {
      const r = await search(q);
      expect(r.status, JSON.stringify(q)).toBe(200);
      return (r.json as SearchPage).hits.map((h) => h.id);
    };
    expect(await ids({ q: 'steer-probe' })).toEqual([probe.id]);
    expect(await ids({ q: 'ls -la' })).toEqual([ls.id]);
    expect(await ids({ q: 'src/app.ts' })).toEqual([ls.id]);
    expect(await ids({ q: '"steer-probe' })).toEqual([probe.id]);
    expect(await ids({ q: 'AND' })).toEqual([ops.id]);
    expect(await ids({ q: '(then) NOT' })).toEqual([ops.id]);
    expect(await ids({ q: 'nosuchcol: x' })).toEqual([]);
    expect(await ids({ q: 'a AND b' })).toEqual([ops.id]);
    expect(await ids({ q: 'NEAR(a c' })).toEqual([]);
    expect(await ids({ q: 'steer* probe' })).toEqual([other.id, probe.id]);
    // Only punctuation: nothing the index holds, said as a sentence.
    const punct = await search({ q: '* - ()' });
    expect(punct.status).toBe(400);
    expect((punct.json as { detail: string }).detail).toMatch(/^Type a word or a number/);
  });

  it('finds a session by its id or the first characters of it, and an event or command by its id', async () => {
    d = await startTestDaemon();
    const first = status('4b3e7c1a-session-one', 1, 'hello');
    const later = status('4b3e7c1a-session-one', 2, 'world');
    const cmd = status('9f00d2e1-other', 1, 'x');
    await postEvents(d.url, d.tokens.hook, [first, later, cmd]);
    const hits = async (q: string) => ((await search({ q })).json as SearchPage).hits;
    expect((await hits('4b3e7c1a-session-one')).map((h) => [h.session, h.id])).toEqual([
      ['4b3e7c1a-session-one', first.id],
    ]);
    expect((await hits('4b3e7c')).map((h) => h.session)).toEqual(['4b3e7c1a-session-one']);
    expect((await hits(later.id)).map((h) => [h.session, h.id])).toEqual([
      ['4b3e7c1a-session-one', later.id],
    ]);
    expect((await hits(later.id))[0].snippet).toBe(`event [${later.id}]`);
  });

  it('answers 400 bad-query with a plain sentence for advanced queries FTS5 cannot parse, never SQL or 500', async () => {
    d = await startTestDaemon();
    await postEvents(d.url, d.tokens.hook, [status('q', 1, 'hello world')]);
    const advanced = (await search({ q: 'hello OR nothing', mode: 'advanced' })).json as SearchPage;
    expect(advanced.hits).toHaveLength(1);
    for (const q of [
      '"unbalanced',
      'AND',
      'hello AND',
      '(hello',
      'nosuchcol: x',
      'NEAR(a b',
      '*',
    ]) {
      const { status: code, json } = await search({ q, mode: 'advanced' });
      expect(code, q).toBe(400);
      expect((json as { error: string }).error, q).toBe('bad-query');
      const detail = (json as { detail?: string }).detail ?? '';
      expect(detail, q).toMatch(/^[A-Z“].*[.!]$/);
      expect(detail, q).not.toMatch(/fts5|no such column|syntax error|SQLITE/i);
    }
    for (const q of ['', '   ']) {
      const { status: code, json } = await search({ q });
      expect(code, q).toBe(400);
      expect((json as { detail?: string }).detail, q).toBe('Type something to search for.');
    }
    expect((await search({ q: 'x', mode: 'regex' })).status).toBe(400);
    const bad: Record<string, string>[] = [
      { q: 'x', limit: '0' },
      { q: 'x', cursor: '!!' },
      { q: 'x'.repeat(1_001) },
    ];
    for (const query of bad) {
      expect((await search(query)).status).toBe(400);
    }
  });
});
