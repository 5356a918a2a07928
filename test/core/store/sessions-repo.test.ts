import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { EpochsRepo } from '../../../main/core/store/epochs-repo';
import { openDb } from '../../../main/core/store/open-db';
import { SessionsRepo, type SessionTouch } from '../../../main/core/store/sessions-repo';

let dir: string;
let db: Database;
let repo: SessionsRepo;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aep-sessions-'));
  db = openDb(join(dir, 'companion.db'));
  repo = new SessionsRepo(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const touch = (over: Partial<SessionTouch> = {}): SessionTouch => ({
  source: 'src',
  session: 's1',
  agent: 'claude-code',
  vendor: 'claude-code',
  cwd: '/p',
  hook: 'SessionStart',
  instructOptIn: false,
  permissionsOptIn: false,
  nowMs: 1_000,
  ...over,
});

describe('SessionsRepo', () => {
  it('creates a session on its first hook and refreshes last seen and last hook after', () => {
    const first = repo.touch(touch());
    expect(first.before).toBeNull();
    expect(first.after).toMatchObject({ state: 'active', firstSeenMs: 1_000, lastSeenMs: 1_000, lastHook: 'SessionStart' });
    const second = repo.touch(touch({ hook: 'Stop', nowMs: 2_000, cwd: null }));
    expect(second.after).toMatchObject({ firstSeenMs: 1_000, lastSeenMs: 2_000, lastHook: 'Stop', cwd: '/p' });
  });

  it('writes a repeat hook behind within the turn, and every read sees it at once', async () => {
    repo.touch(touch());
    repo.touch(touch({ hook: 'PreToolUse', nowMs: 3_000 }));
    const other = new SessionsRepo(db);
    expect(repo.list()[0]).toMatchObject({ lastHook: 'PreToolUse' });
    repo.touch(touch({ hook: 'PostToolUse', nowMs: 4_000 }));
    await new Promise((r) => setImmediate(r));
    expect(other.get('src', 's1')).toMatchObject({ lastHook: 'PostToolUse', lastSeenMs: 4_000 });
  });

  it('keeps the opt-ins once a hook carried them', () => {
    repo.touch(touch({ instructOptIn: true }));
    expect(repo.touch(touch({ instructOptIn: false })).after.instructOptIn).toBe(true);
  });

  it('never resurrects an ended session on a late hook', () => {
    repo.touch(touch());
    repo.setState('src', 's1', 'ended');
    expect(repo.touch(touch({ nowMs: 5_000 })).after.state).toBe('ended');
  });

  it('makes an idle session active again on its next hook', () => {
    repo.touch(touch());
    repo.setState('src', 's1', 'idle');
    expect(repo.touch(touch({ nowMs: 5_000 })).after.state).toBe('active');
  });

  it('lists stale active sessions at or before a time', () => {
    repo.touch(touch({ session: 'old', nowMs: 100 }));
    repo.touch(touch({ session: 'new', nowMs: 900 }));
    expect(repo.staleActive(100).map((r) => r.session)).toEqual(['old']);
  });

  it('counts pending attention without going below zero', () => {
    repo.touch(touch());
    repo.adjustPendingAttention('src', 's1', +1);
    repo.adjustPendingAttention('src', 's1', -1);
    repo.adjustPendingAttention('src', 's1', -1);
    expect(repo.get('src', 's1')?.pendingAttention).toBe(0);
  });

  it('summarizes sessions for the console with ISO times', () => {
    repo.touch(touch({ nowMs: Date.parse('2026-11-29T10:00:00Z'), instructOptIn: true }));
    expect(repo.list()[0]).toMatchObject({ session: 's1', vendor: 'claude-code', firstSeen: '2026-11-29T10:00:00.000Z', instructOptIn: true, eventCount: 0 });
  });
});

describe('EpochsRepo', () => {
  it('hands out a new, never reused epoch on every start, durably', () => {
    const epochs = new EpochsRepo(db);
    expect(epochs.next('claude-code/aep-companion')).toBe(0);
    expect(epochs.next('claude-code/aep-companion')).toBe(1);
    expect(epochs.next('codex/aep-companion')).toBe(0);
    db.close();
    db = openDb(join(dir, 'companion.db'));
    expect(new EpochsRepo(db).next('claude-code/aep-companion')).toBe(2);
  });
});
