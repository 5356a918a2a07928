/**
 * Group commit under kill -9: a child admits events one turn at a time, reports each admit once it
 * resolved, queues one more and kills itself before that one's COMMIT (fixtures/admit-kill.ts).
 * Every acknowledged event is in the file afterwards with its count and session row; the one
 * never acknowledged is not, and nothing is half there.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../main/core/store/open-db';
import { SearchIndexer } from '../../../main/core/store/search-indexer';
import { tempDir } from './temp-db';

const root = fileURLToPath(new URL('../../..', import.meta.url));
const killChild = fileURLToPath(new URL('./fixtures/admit-kill.ts', import.meta.url));

let tmp: ReturnType<typeof tempDir>;
let db: Database | undefined;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => {
  if (db?.open) db.close();
  db = undefined;
  tmp.cleanup();
});

const killedChild = (file: string, ...steps: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', killChild, file, ...steps], { cwd: root, encoding: 'utf8' });

const ids = (d: Database): string[] => (d.prepare('SELECT id FROM events ORDER BY n').pluck().all() as string[]);
const held = (d: Database, session: string): number =>
  (d.prepare('SELECT held FROM event_sessions WHERE session = ?').pluck().get(session) as number | undefined) ?? 0;

describe('group commit under SIGKILL', () => {
  it('keeps every acknowledged admit, and nothing of the one whose COMMIT never ran', () => {
    const file = tmp.file();
    const child = killedChild(file, 'e1', 'e2', 'e3');
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout.trim().split('\n')).toEqual(['acked e1 true', 'acked e2 true', 'acked e3 true']);
    db = openDb(file);
    expect(ids(db)).toEqual(['e1', 'e2', 'e3']);
    expect(held(db, 's1')).toBe(3);
    expect((db.prepare('SELECT json FROM events WHERE id = ?').pluck().get('e2') as string)).toContain('naïve ✓ e2');
  });

  it('keeps the session rows and counts of each acknowledged turn, and the search index catches up after the restart', () => {
    const file = tmp.file();
    const child = killedChild(file, 'rows', 'a1', 'a2', 'index', 'at:s2', 'b1', 'b2', 'b3');
    expect(child.signal).toBe('SIGKILL');
    expect(child.stdout).toContain('indexed 2');
    expect(child.stdout).toContain('acked b3 true');
    db = openDb(file);
    expect(ids(db)).toEqual(['a1', 'a2', 'b1', 'b2', 'b3']);
    expect([held(db, 's1'), held(db, 's2')]).toEqual([2, 3]);
    const lastHook = db.prepare('SELECT session, last_hook FROM sessions ORDER BY session').all();
    expect(lastHook).toEqual([
      { session: 's1', last_hook: 'a2' },
      { session: 's2', last_hook: 'b3' },
    ]);
    expect(db.prepare('SELECT count(*) FROM events_fts').pluck().get()).toBe(2);
    new SearchIndexer(db, { everyMs: 0 }).catchUp();
    expect(db.prepare('SELECT count(*) FROM events_fts').pluck().get()).toBe(5);
  });
});
