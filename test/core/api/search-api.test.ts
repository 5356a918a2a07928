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
    // "alpha" is a session id, but only the text of the third event says it.
    const alpha = (await search({ q: 'alpha' })).json as SearchPage;
    expect(alpha.hits.map((h) => h.session)).toEqual(['beta']);
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

  it('answers 400 bad-query with the reason for queries FTS5 cannot parse, never 500', async () => {
    d = await startTestDaemon();
    await postEvents(d.url, d.tokens.hook, [status('q', 1, 'hello world')]);
    for (const q of [
      '"unbalanced',
      'AND',
      'hello AND',
      '(hello',
      'nosuchcol: x',
      'NEAR(a b',
      '*',
      '',
      '   ',
    ]) {
      const { status: code, json } = await search({ q });
      expect(code, q).toBe(400);
      expect((json as { error: string }).error, q).toBe('bad-query');
      expect((json as { detail?: string }).detail, q).toBeTruthy();
    }
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
