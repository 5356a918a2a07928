import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_CACHE_KIB, latestVersion, openDb } from '../../../main/core/store/open-db';
import { migrations } from '../../../main/core/store/migrations/index';
import { StoreError } from '../../../main/core/store/store-error';
import type { Migration } from '../../../main/core/store/migrations/migration';
import { tempDir } from './temp-db';

let tmp: ReturnType<typeof tempDir>;
beforeEach(() => {
  tmp = tempDir();
});
afterEach(() => tmp.cleanup());

function thrown(fn: () => unknown): StoreError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(StoreError);
    return error as StoreError;
  }
  throw new Error('expected a StoreError');
}

describe('openDb', () => {
  it('creates a fresh database with WAL, NORMAL sync, foreign keys, a busy timeout and the latest user_version', () => {
    const db = openDb(tmp.file());
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    expect(db.pragma('synchronous', { simple: true })).toBe(1); // NORMAL
    expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
    expect(db.pragma('busy_timeout', { simple: true })).toBeGreaterThan(0);
    expect(db.pragma('user_version', { simple: true })).toBe(latestVersion());
    const tables = (
      db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).all() as { name: string }[]
    ).map((r) => r.name);
    expect(tables).toEqual(
      expect.arrayContaining(['events', 'event_sessions', 'settings', 'audit']),
    );
    db.close();
  });

  it('bounds the page cache per connection below the 16 MB better-sqlite3 is built with', () => {
    const db = openDb(tmp.file());
    expect(db.pragma('cache_size', { simple: true })).toBe(-DEFAULT_CACHE_KIB);
    expect(DEFAULT_CACHE_KIB).toBeLessThan(16_000);
    db.close();
    const small = openDb(tmp.file(), { cacheKiB: 512 });
    expect(small.pragma('cache_size', { simple: true })).toBe(-512);
    small.close();
  });

  it('lists migrations in ascending version order ending at the latest version', () => {
    const versions = migrations.map((m) => m.version);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
    expect(latestVersion()).toBe(versions[versions.length - 1]);
  });

  it('runs only the migrations above the stored user_version, and keeps data across reopen', () => {
    const ran: number[] = [];
    const step = (version: number): Migration => ({
      version,
      name: `t${version}`,
      up: (db) => {
        ran.push(version);
        db.exec(`CREATE TABLE t${version} (x)`);
      },
    });
    openDb(tmp.file(), { migrations: [step(10), step(20)] }).close();
    expect(ran).toEqual([10, 20]);
    const db = openDb(tmp.file(), { migrations: [step(10), step(20), step(30)] });
    expect(ran).toEqual([10, 20, 30]);
    expect(db.pragma('user_version', { simple: true })).toBe(30);
    db.close();
  });

  it('rolls back every step of a failing migration run and leaves user_version unchanged', () => {
    openDb(tmp.file(), {
      migrations: [{ version: 10, name: 'a', up: (db) => db.exec('CREATE TABLE a (x)') }],
    }).close();
    const failing: Migration[] = [
      { version: 10, name: 'a', up: (db) => db.exec('CREATE TABLE a (x)') },
      { version: 20, name: 'b', up: (db) => db.exec('CREATE TABLE b (x)') },
      { version: 30, name: 'c', up: (db) => db.exec('CREATE TABLE broken (') },
    ];
    expect(() => openDb(tmp.file(), { migrations: failing })).toThrow();
    const check = new BetterSqlite3(tmp.file());
    expect(check.pragma('user_version', { simple: true })).toBe(10);
    expect(check.prepare(`SELECT name FROM sqlite_master WHERE name = 'b'`).get()).toBeUndefined();
    check.close();
  });

  it('refuses a database whose user_version is ahead of the code with newer-schema', () => {
    const raw = new BetterSqlite3(tmp.file());
    raw.pragma(`user_version = ${latestVersion() + 100}`);
    raw.close();
    const error = thrown(() => openDb(tmp.file()));
    expect(error.code).toBe('newer-schema');
    expect(error.message).toContain(String(latestVersion() + 100));
    expect(error.message).not.toContain('\n');
    // Refusal must not touch the file: the version is still the newer one.
    const check = new BetterSqlite3(tmp.file());
    expect(check.pragma('user_version', { simple: true })).toBe(latestVersion() + 100);
    check.close();
  });

  it('reports a file of garbage bytes as corrupt', () => {
    writeFileSync(
      tmp.file(),
      Buffer.from(Array.from({ length: 8192 }, (_, i) => (i * 7919 + 13) % 256)),
    );
    const error = thrown(() => openDb(tmp.file()));
    expect(error.code).toBe('corrupt');
    expect(error.message).toContain(tmp.file());
    expect(error.message).not.toContain('\n');
  });

  it('reports a path under a regular file as unwritable', () => {
    const blocker = join(tmp.dir, 'not-a-dir');
    writeFileSync(blocker, 'x');
    const error = thrown(() => openDb(join(blocker, 'companion.db')));
    expect(error.code).toBe('unwritable');
    expect(error.message).toContain('not-a-dir');
  });

  it('reports a missing data directory as unwritable', () => {
    const error = thrown(() => openDb(join(tmp.dir, 'missing', 'companion.db')));
    expect(error.code).toBe('unwritable');
  });

  it('reports a directory in place of the database file as unwritable', () => {
    mkdirSync(tmp.file());
    const error = thrown(() => openDb(tmp.file()));
    expect(error.code).toBe('unwritable');
  });

  it('reports a database held under an exclusive lock by another connection as locked', () => {
    const holder = new BetterSqlite3(tmp.file());
    holder.exec('BEGIN EXCLUSIVE; CREATE TABLE held (x);');
    try {
      const error = thrown(() => openDb(tmp.file(), { busyTimeoutMs: 10 }));
      expect(error.code).toBe('locked');
    } finally {
      holder.exec('ROLLBACK');
      holder.close();
    }
  });
});
