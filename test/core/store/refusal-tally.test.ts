/** Refused requests are aggregated per reason and minute: a flood adds a bounded number of bounded rows. */
import { request } from 'node:http';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../main/core/store/open-db';
import { REFUSAL_SAMPLES, RefusalTally } from '../../../main/core/store/refusal-tally';
import { startTestDaemon, type TestDaemon } from '../relay/harness';
import { tempDir } from './temp-db';

let d: TestDaemon | undefined;
afterEach(async () => {
  await d?.stop();
  d = undefined;
});

/** One GET on a keep-alive-less connection; resolves with the status. */
const get = (url: string, path: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const req = request(`${url}${path}`, { method: 'GET', agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end();
  });

describe('refused requests', () => {
  it('2,000 tokenless requests with distinct long paths add a bounded number of audit rows that count them all', async () => {
    d = await startTestDaemon();
    const before = d.context.audit.query({ action: 'auth.refused' }).total;
    const longTail = 'x'.repeat(2_000);
    for (let batch = 0; batch < 20; batch++) {
      const statuses = await Promise.all(
        Array.from({ length: 100 }, (_, i) => get(d!.url, `/api/status/${batch}-${i}-${longTail}`)),
      );
      expect(statuses.every((s) => s === 401)).toBe(true);
    }
    const page = d.context.audit.query({ action: 'auth.refused', limit: 1_000 });
    // One row per (minute, surface, actor, code): the run may straddle a minute boundary or two.
    expect(page.total - before).toBeLessThanOrEqual(3);
    const counted = page.rows.reduce(
      (sum, r) => sum + ((r.detail as { count: number }).count ?? 0),
      0,
    );
    expect(counted).toBe(2_000);
    for (const row of page.rows) {
      const detail = row.detail as { samples: string[]; code: string };
      expect(detail.code).toBe('unauthorized');
      expect(detail.samples.length).toBeLessThanOrEqual(REFUSAL_SAMPLES);
      expect(JSON.stringify(row).length).toBeLessThan(2_000);
    }
    const bytes = d.context.db
      .prepare(`SELECT SUM(LENGTH(detail)) AS n FROM audit WHERE action = 'auth.refused'`)
      .get() as { n: number };
    expect(bytes.n).toBeLessThan(10_000);
  });

  it('starts a new row per reason and per minute, and bounds the samples', () => {
    const t = tempDir();
    const db: Database.Database = openDb(t.file());
    try {
      const tally = new RefusalTally(db);
      const base = Date.parse('2026-12-01T10:00:05.000Z');
      for (let i = 0; i < 50; i++) {
        tally.record({
          method: 'GET',
          path: `/p${i}`,
          code: 'unauthorized',
          reason: 'no token',
          surface: 'api',
          actor: 'anonymous',
          nowMs: base + i,
        });
        tally.record({
          method: 'GET',
          path: `/p${i}`,
          code: 'bad-host',
          reason: 'host',
          surface: 'api',
          actor: 'anonymous',
          nowMs: base + i,
        });
      }
      tally.record({
        method: 'GET',
        path: '/late',
        code: 'unauthorized',
        reason: 'no token',
        surface: 'api',
        actor: 'anonymous',
        nowMs: base + 60_000,
      });
      const rows = db
        .prepare(`SELECT time, detail FROM audit WHERE action = 'auth.refused' ORDER BY id`)
        .all() as { time: string; detail: string }[];
      expect(rows).toHaveLength(3);
      const details = rows.map(
        (r) => JSON.parse(r.detail) as { count: number; samples: string[]; code: string },
      );
      expect(details.map((x) => [x.code, x.count])).toEqual([
        ['unauthorized', 50],
        ['bad-host', 50],
        ['unauthorized', 1],
      ]);
      expect(details[0].samples).toEqual(['GET /p0', 'GET /p1', 'GET /p2', 'GET /p3', 'GET /p4']);
    } finally {
      db.close();
      t.cleanup();
    }
  });
});
