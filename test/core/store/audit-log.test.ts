import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuditRow, Surface } from '../../../common/audit';
import { AuditLog, type AuditInput } from '../../../main/core/store/audit-log';
import { openDb } from '../../../main/core/store/open-db';
import { StoreError } from '../../../main/core/store/store-error';
import { tempDir } from './temp-db';

let tmp: ReturnType<typeof tempDir>;
let db: Database;
beforeEach(() => {
  tmp = tempDir();
  db = openDb(tmp.file());
});
afterEach(() => {
  db.close();
  tmp.cleanup();
});

const row = (fields: Partial<AuditInput> = {}): AuditInput => ({
  actor: 'operator',
  surface: 'console',
  action: 'instruct.command',
  session: 's1',
  commandId: null,
  outcome: 'ok',
  detail: null,
  ...fields,
});

/** 25 rows: sessions alternate s1/s2, every fifth refused over the ws surface. */
function seed(log: AuditLog): AuditRow[] {
  return Array.from({ length: 25 }, (_, i) =>
    log.append(
      row({
        session: i % 2 === 0 ? 's1' : 's2',
        action: i % 3 === 0 ? 'steering.enabled' : 'instruct.command',
        surface: (i % 5 === 0 ? 'ws' : 'console') as Surface,
        outcome: i % 5 === 0 ? 'refused' : 'ok',
        detail: { i },
      }),
    ),
  );
}

describe('AuditLog', () => {
  it('appends rows with increasing ids, a default time, and detail round-tripped through the file', () => {
    const log = new AuditLog(db);
    const a = log.append(row({ commandId: 'cmd-1', detail: { text: 'hi', n: 2 } }));
    const b = log.append(row({ time: '2026-01-01T00:00:00.000Z' }));
    expect(b.id).toBeGreaterThan(a.id);
    expect(Number.isNaN(Date.parse(a.time))).toBe(false);
    db.close();
    db = openDb(tmp.file());
    const rows = new AuditLog(db).query().rows;
    expect(rows).toEqual([b, a]);
    expect(rows[1].detail).toEqual({ text: 'hi', n: 2 });
    expect(rows[0].time).toBe('2026-01-01T00:00:00.000Z');
  });

  it('pages newest first by id with next/before until the end, and total counts every row', () => {
    const log = new AuditLog(db);
    const all = seed(log);
    const seen: number[] = [];
    let before: number | undefined;
    let pages = 0;
    for (;;) {
      const page = log.query({ limit: 10, before });
      pages += 1;
      expect(page.total).toBe(25);
      seen.push(...page.rows.map((r) => r.id));
      if (page.next === null) break;
      before = page.next;
    }
    expect(pages).toBe(3);
    expect(seen).toEqual(all.map((r) => r.id).reverse());
  });

  it('filters by session, action, surface and outcome together', () => {
    const log = new AuditLog(db);
    const all = seed(log);
    const expected = all.filter((r) => r.session === 's1' && r.outcome === 'refused').reverse();
    const page = log.query({ session: 's1', outcome: 'refused' });
    expect(page.rows).toEqual(expected);
    expect(page.total).toBe(expected.length);
    expect(log.query({ action: 'steering.enabled', surface: 'ws' }).rows.map((r) => r.id)).toEqual(
      all
        .filter((r) => r.action === 'steering.enabled' && r.surface === 'ws')
        .map((r) => r.id)
        .reverse(),
    );
    expect(log.query({ session: 'nobody' })).toEqual({ rows: [], next: null, total: 0 });
  });

  it('ends with next = null exactly when the last page is full', () => {
    const log = new AuditLog(db);
    for (let i = 0; i < 4; i++) log.append(row());
    const first = log.query({ limit: 2 });
    expect(first.next).not.toBeNull();
    const second = log.query({ limit: 2, before: first.next ?? undefined });
    expect(second.rows).toHaveLength(2);
    expect(second.next).toBeNull();
  });

  it('iterates every matching row newest first beyond one page', () => {
    const log = new AuditLog(db);
    const insert = db.transaction(() => {
      for (let i = 0; i < 2_500; i++) log.append(row({ session: i % 2 === 0 ? 'even' : 'odd' }));
    });
    insert();
    const ids = [...log.iterate({ session: 'even' })].map((r) => r.id);
    expect(ids).toHaveLength(1_250);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect(new Set(ids).size).toBe(1_250);
  });

  it('refuses malformed rows with a clear invalid-input error', () => {
    const log = new AuditLog(db);
    expect(() => log.append(row({ surface: 'telepathy' as Surface }))).toThrow(/surface/);
    expect(() => log.append(row({ action: '' }))).toThrow(StoreError);
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => log.append(row({ detail: circular }))).toThrow(/detail/);
    expect(log.query().total).toBe(0);
  });
});
