/** Test helpers: real SQLite files in a fresh temp directory, and compact AEP event builders. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AepEvent } from '../../../common/aep/envelope';
import type { Database } from 'better-sqlite3';
import type { AdmitItem } from '../../../main/core/store/event-store';

/** A temp directory removed by `cleanup()`. */
export function tempDir(): { dir: string; file: (name?: string) => string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'aep-store-'));
  return {
    dir,
    file: (name = 'companion.db') => join(dir, name),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

let counter = 0;

/** A session-scoped event; pass `seq: undefined` for a seq-less (foreign-emitter) event. */
export function event(fields: Partial<AepEvent> & { session?: string }): AepEvent {
  counter += 1;
  return {
    aep: '0.1',
    id: `evt-${counter}`,
    type: 'tool.started',
    time: '2026-11-29T19:00:00.000Z',
    source: 'urn:test:emitter',
    agent: 'test-agent',
    session: 's1',
    ...fields,
  };
}

/** Wraps events as admit items with their JSON text. */
export const items = (...events: AepEvent[]): AdmitItem[] =>
  events.map((e) => ({ event: e, json: JSON.stringify(e) }));

/**
 * Stores sequenced events the way the store's schema before migration 0120 held them (a row each
 * and the session's count), for tests that open a database at an older schema version: today's
 * `EventStore` writes columns those versions lack.
 */
export function storeAtOldSchema(db: Database, events: readonly AepEvent[]): void {
  const insert = db.prepare(
    `INSERT INTO events (source, id, type, session, agent, epoch, seq, severity, time, cause, ord_epoch, ord_seq, ord_tie, json)
     VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?, NULL, ?, ?, 0, ?)`,
  );
  const count = db.prepare(
    'INSERT INTO event_sessions (session, held) VALUES (?, 1) ON CONFLICT (session) DO UPDATE SET held = held + 1',
  );
  db.transaction(() => {
    for (const e of events) {
      insert.run(e.source, e.id, e.type, e.session, e.agent, e.epoch ?? null, e.seq, e.time, e.epoch ?? 0, e.seq, JSON.stringify(e));
      count.run(e.session);
    }
  })();
}
