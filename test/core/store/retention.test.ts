/** Age-based retention of every table: chunked, yielding between chunks, bookkeeping kept right. */
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS } from '../../../common/settings';
import { AuditLog } from '../../../main/core/store/audit-log';
import { EventStore } from '../../../main/core/store/event-store';
import { openDb } from '../../../main/core/store/open-db';
import { RetentionSweeper, type RetentionPolicy } from '../../../main/core/store/retention';
import { SessionsRepo } from '../../../main/core/store/sessions-repo';
import { sqlitePositions } from '../../../main/core/store/transcript-positions';
import { event, items, tempDir } from './temp-db';

const DAY = 86_400_000;
const NOW = Date.parse('2026-12-01T12:00:00.000Z');
const iso = (ms: number): string => new Date(ms).toISOString();
const policy: RetentionPolicy = {
  'retention.eventDays': 30,
  'retention.sessionDays': 30,
  'retention.endedSessionDays': 7,
  'retention.steeringDays': 30,
  'retention.auditDays': 365,
};

let t: ReturnType<typeof tempDir>;
let db: Database;
let store: EventStore;
beforeEach(() => {
  t = tempDir();
  db = openDb(t.file());
  store = new EventStore(db, { maxEventsPerSession: 100_000 });
});
afterEach(() => {
  db.close();
  t.cleanup();
});

const count = (table: string): number =>
  (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
const addSession = (session: string, state: string, lastSeenMs: number): void => {
  db.prepare(
    `INSERT INTO sessions (source, session, agent, vendor, cwd, state, first_seen_ms, last_seen_ms, last_hook)
     VALUES ('urn:test:emitter', ?, 'test-agent', NULL, NULL, ?, ?, ?, NULL)`,
  ).run(session, state, lastSeenMs, lastSeenMs);
};

describe('retention', () => {
  it('has defaults for every table, audit kept longest', () => {
    const days = [
      DEFAULT_SETTINGS['retention.eventDays'],
      DEFAULT_SETTINGS['retention.sessionDays'],
      DEFAULT_SETTINGS['retention.endedSessionDays'],
      DEFAULT_SETTINGS['retention.steeringDays'],
    ];
    expect(Math.max(...days)).toBeLessThan(DEFAULT_SETTINGS['retention.auditDays']);
  });

  it('deletes events older than eventDays in bounded chunks, yielding between them, and records the trim', async () => {
    addSession('s1', 'active', NOW);
    const old = Array.from({ length: 450 }, (_, i) =>
      event({ session: 's1', seq: i + 1, epoch: 0, time: iso(NOW - 40 * DAY + i) }),
    );
    const fresh = Array.from({ length: 50 }, (_, i) =>
      event({ session: 's1', seq: 451 + i, epoch: 0, time: iso(NOW - DAY) }),
    );
    await store.admit(items(...old, ...fresh));
    let yields = 0;
    const sweeper = new RetentionSweeper(db, { chunk: 100, yieldTurn: async () => void yields++ });
    const removed = await sweeper.sweep(policy, NOW);
    expect(removed.events).toBe(450);
    expect(count('events')).toBe(50);
    expect(yields).toBeGreaterThanOrEqual(4);
    expect(store.counts()).toEqual({ events: 50, sessions: 1 });
    expect(store.trimmedThrough('s1')).toEqual({ epoch: 0, seq: 450 });
    expect([...store.replay('s1', null)].map((e) => e.seq)[0]).toBe(451);
  });

  it('forgets ended sessions after endedSessionDays and any session after sessionDays, with their events', async () => {
    addSession('ended-old', 'ended', NOW - 8 * DAY);
    addSession('ended-new', 'ended', NOW - 2 * DAY);
    addSession('idle-old', 'idle', NOW - 31 * DAY);
    addSession('active', 'active', NOW - DAY);
    for (const s of ['ended-old', 'ended-new', 'idle-old', 'active'])
      await store.admit(
        items(
          ...Array.from({ length: 5 }, (_, i) =>
            event({ session: s, seq: i + 1, epoch: 0, time: iso(NOW - DAY) }),
          ),
        ),
      );
    const positions = sqlitePositions(db);
    for (const s of ['ended-old', 'active']) positions.set('claude-code', s, { path: `/h/.claude/projects/p/${s}.jsonl`, ino: 1, offset: 10 });
    const removed = await new RetentionSweeper(db, { chunk: 2 }).sweep(policy, NOW);
    expect(removed.sessions).toBe(2);
    expect(removed.events).toBe(10);
    // A forgotten session's transcript position goes with it.
    expect(positions.get('claude-code', 'ended-old')).toBeUndefined();
    expect(positions.get('claude-code', 'active')?.offset).toBe(10);
    const left = (
      db.prepare('SELECT session FROM sessions ORDER BY session').all() as { session: string }[]
    ).map((r) => r.session);
    expect(left).toEqual(['active', 'ended-new']);
    expect(store.heldSessions()).toEqual(['active', 'ended-new']);
  });

  it('deletes settled instructions and acks after steeringDays (never queued ones) and audit after auditDays', async () => {
    const ins = db.prepare(
      `INSERT INTO steering (command_source, command_id, vendor, session, text, actor, surface, state, queued_at_ms, settled_at_ms)
       VALUES ('src', ?, 'claude-code', 's', 't', 'operator', 'console', ?, ?, ?)`,
    );
    ins.run('old-settled', 'delivered', NOW - 40 * DAY, NOW - 40 * DAY);
    ins.run('old-queued', 'queued', NOW - 40 * DAY, null);
    ins.run('new-settled', 'dropped', NOW - DAY, NOW - DAY);
    const ack = db.prepare(
      `INSERT INTO control_acks (source, command_id, session, json, time_ms) VALUES ('src', ?, 's', '{}', ?)`,
    );
    ack.run('a-old', NOW - 40 * DAY);
    ack.run('a-new', NOW - DAY);
    const audit = new AuditLog(db);
    for (let i = 0; i < 7; i++)
      audit.append({
        actor: 'operator',
        surface: 'console',
        action: 'x',
        session: null,
        commandId: null,
        outcome: 'ok',
        detail: null,
        time: iso(NOW - 400 * DAY + i),
      });
    audit.append({
      actor: 'operator',
      surface: 'console',
      action: 'x',
      session: null,
      commandId: null,
      outcome: 'ok',
      detail: null,
      time: iso(NOW - 300 * DAY),
    });
    const removed = await new RetentionSweeper(db, { chunk: 3 }).sweep(policy, NOW);
    expect(removed).toMatchObject({ steering: 1, controlAcks: 1, audit: 7 });
    expect(
      (
        db.prepare('SELECT command_id FROM steering ORDER BY n').all() as { command_id: string }[]
      ).map((r) => r.command_id),
    ).toEqual(['old-queued', 'new-settled']);
    expect(count('control_acks')).toBe(1);
    expect(count('audit')).toBe(1);
  });

  it('a session row removed while its write-behind update was pending comes back whole', () => {
    const repo = new SessionsRepo(db);
    const touch = {
      source: 'urn:s',
      session: 'x',
      agent: 'claude-code',
      vendor: 'claude-code' as const,
      cwd: '/w',
      hook: 'SessionStart',
      instructOptIn: true,
      permissionsOptIn: false,
      nowMs: NOW,
    };
    repo.touch(touch);
    db.prepare('DELETE FROM sessions').run();
    repo.touch({ ...touch, hook: 'PreToolUse', nowMs: NOW + 1 });
    expect(repo.get('urn:s', 'x')).toMatchObject({
      session: 'x',
      lastHook: 'PreToolUse',
      instructOptIn: true,
      cwd: '/w',
    });
  });
});
