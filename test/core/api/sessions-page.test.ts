/** Paged /api/sessions: keyset pages from an index, the bare-array first page kept for old clients. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SessionsPage } from '../../../common/api';
import { openDb } from '../../../main/core/store/open-db';
import { SessionsRepo } from '../../../main/core/store/sessions-repo';
import { tempDir } from '../store/temp-db';
import {
  ccPayload,
  ManualScheduler,
  postHook,
  removeDataDir,
  startHooksDaemon,
  TestClock,
  type HooksDaemon,
} from '../hooks/hooks-harness';

describe('GET /api/sessions paging', () => {
  let d: HooksDaemon;
  let clock: TestClock;
  beforeEach(async () => {
    clock = new TestClock();
    d = await startHooksDaemon({ clock, scheduler: new ManualScheduler() });
    for (let i = 0; i < 5; i++) {
      await postHook(
        d.url,
        d.daemon.tokens.hook,
        'claude-code',
        ccPayload('SessionStart', `s${i}`),
      );
      clock.advance(1_000);
    }
  });
  afterEach(async () => {
    await d.close();
    removeDataDir(d.dataDir);
  });
  const get = async (path: string): Promise<{ status: number; json: unknown }> => {
    const res = await fetch(`${d.url}${path}`, {
      headers: { authorization: `Bearer ${d.daemon.tokens.operator}` },
    });
    return { status: res.status, json: await res.json() };
  };

  it('walks every session once, most recent first, with next and limit', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const { status, json } = await get(
        `/api/sessions/page?limit=2${cursor === null ? '' : `&cursor=${cursor}`}`,
      );
      expect(status).toBe(200);
      const page = json as SessionsPage;
      expect(page.limit).toBe(2);
      expect(page.sessions.length).toBeLessThanOrEqual(2);
      seen.push(...page.sessions.map((s) => s.session));
      cursor = page.next;
      pages++;
    } while (cursor !== null);
    expect(pages).toBe(3);
    expect(seen).toEqual(['s4', 's3', 's2', 's1', 's0']);
  });

  it('keeps the bare array for /api/sessions, bounded by limit', async () => {
    const all = await get('/api/sessions');
    expect((all.json as { session: string }[]).map((s) => s.session)).toEqual([
      's4',
      's3',
      's2',
      's1',
      's0',
    ]);
    const one = await get('/api/sessions?limit=1');
    expect((one.json as { session: string }[]).map((s) => s.session)).toEqual(['s4']);
  });

  it('answers 400 for a bad limit or cursor', async () => {
    for (const q of [
      'limit=0',
      'limit=1001',
      'limit=abc',
      'cursor=nope',
      `cursor=${Buffer.from('[1,2]').toString('base64url')}`,
    ]) {
      const { status, json } = await get(`/api/sessions/page?${q}`);
      expect(status, q).toBe(400);
      expect((json as { error: string }).error).toBe('bad-request');
    }
  });
});

describe('SessionsRepo.page', () => {
  it('reads pages through the sessions_seen index, never a full scan, and loses no row with equal times', () => {
    const t = tempDir();
    const db = openDb(t.file());
    try {
      const repo = new SessionsRepo(db);
      const ins = db.prepare(
        `INSERT INTO sessions (source, session, agent, vendor, cwd, state, first_seen_ms, last_seen_ms) VALUES (?, ?, 'a', NULL, NULL, 'active', ?, ?)`,
      );
      db.transaction(() => {
        // 2,500 sessions, many sharing a last-seen time: the cursor's tiebreak must keep each once.
        for (let i = 0; i < 2_500; i++)
          ins.run(`src${i % 3}`, `s${i}`, Math.floor(i / 10), Math.floor(i / 10));
      })();
      const seen = new Set<string>();
      let after = null;
      let pages = 0;
      do {
        const page = repo.page(300, after);
        for (const s of page.sessions) seen.add(`${s.source}/${s.session}`);
        after = page.next;
        pages++;
      } while (after !== null);
      expect(seen.size).toBe(2_500);
      expect(pages).toBe(9);
      const plan = db
        .prepare(
          `EXPLAIN QUERY PLAN SELECT s.*, e.held FROM sessions s LEFT JOIN event_sessions e ON e.session = s.session
           WHERE (s.last_seen_ms, s.source, s.session) < (?, ?, ?) ORDER BY s.last_seen_ms DESC, s.source DESC, s.session DESC LIMIT ?`,
        )
        .all(5, 'a', 'b', 10) as { detail: string }[];
      const text = plan.map((p) => p.detail).join('\n');
      expect(text).toMatch(/sessions_seen/);
      expect(text).not.toMatch(/TEMP B-TREE/);
    } finally {
      db.close();
      t.cleanup();
    }
  });
});
