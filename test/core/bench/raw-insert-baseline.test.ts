import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { rawInsertBaseline } from '../../../bench/raw-insert-baseline';
import { event, items, tempDir } from '../store/temp-db';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

describe('rawInsertBaseline', () => {
  it('writes every row into the events table in batches and reports a positive rate', () => {
    const rows = items(
      ...Array.from({ length: 2_345 }, (_, i) => event({ seq: i, session: `s${i % 7}` })),
    );
    const result = rawInsertBaseline(tmp.file(), rows, 1_000);
    expect(result.events).toBe(2_345);
    expect(result.eventsPerSecond).toBeGreaterThan(0);
    const db = new BetterSqlite3(tmp.file(), { readonly: true });
    const stored = db
      .prepare('SELECT COUNT(*) AS n, COUNT(DISTINCT session) AS sessions FROM events')
      .get();
    db.close();
    expect(stored).toEqual({ n: 2_345, sessions: 7 });
  });
});
