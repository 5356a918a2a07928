import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDb } from '../../../main/core/store/open-db';
import { SteeringRepo, type QueuedInstruction } from '../../../main/core/store/steering-repo';

let dir: string;
let db: Database;
let repo: SteeringRepo;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'aep-steering-repo-'));
  db = openDb(join(dir, 'companion.db'));
  repo = new SteeringRepo(db);
});
afterEach(() => {
  db.close();
  rmSync(dir, { recursive: true, force: true });
});

const item = (id: string, text = id): QueuedInstruction => ({
  commandSource: 'src',
  commandId: id,
  vendor: 'claude-code',
  session: 's1',
  text,
  actor: 'operator',
  surface: 'console',
  queuedAtMs: 1_000,
});
const ack = (id: string) => ({ source: 'src', commandId: id, session: 's1', json: `{"ack":"${id}"}` });

describe('SteeringRepo', () => {
  it('records the ack and the queue entry together, and refuses a second decision', () => {
    expect(repo.recordDecision(ack('a'), 1_000, item('a'))).toBe(true);
    expect(repo.recordDecision(ack('a'), 2_000, item('a', 'other'))).toBe(false);
    expect(repo.findAck('src', 'a')?.json).toBe('{"ack":"a"}');
    expect(repo.queued('claude-code', 's1').map((q) => q.text)).toEqual(['a']);
  });

  it('keeps arrival order', () => {
    for (const id of ['c', 'a', 'b']) repo.recordDecision(ack(id), 1_000, item(id));
    expect(repo.queued('claude-code', 's1').map((q) => q.commandId)).toEqual(['c', 'a', 'b']);
  });

  it('settles an instruction once: a second delivery or a drop after delivery changes nothing', () => {
    repo.recordDecision(ack('a'), 1_000, item('a'));
    // Delivered only from handing: a queued instruction was never written into a reply.
    expect(repo.markDelivered([item('a')], 'PreToolUse', 1_400)).toHaveLength(0);
    expect(repo.markHanding([item('a')], 1_450)).toHaveLength(1);
    expect(repo.markHanding([item('a')], 1_460)).toHaveLength(0);
    expect(repo.allHanding().map((i) => i.commandId)).toEqual(['a']);
    expect(repo.markDelivered([item('a')], 'PreToolUse', 1_500)).toHaveLength(1);
    expect(repo.markDelivered([item('a')], 'PostToolUse', 1_600)).toHaveLength(0);
    expect(repo.markDropped([item('a')], 'session-ended', 1_700)).toHaveLength(0);
    expect(repo.get('src', 'a')).toMatchObject({ state: 'delivered', moment: 'PreToolUse', queuedMs: 500, reason: null });
  });

  it('lists instruction records newest first, optionally by session', () => {
    repo.recordDecision(ack('a'), 1_000, item('a'));
    repo.recordDecision(ack('b'), 1_000, { ...item('b'), session: 's2' });
    repo.markDropped([item('a')], 'steering-disabled', 3_000);
    expect(repo.list().map((r) => r.commandId)).toEqual(['b', 'a']);
    expect(repo.list({ session: 's1' })).toEqual([
      expect.objectContaining({ commandId: 'a', state: 'dropped', reason: 'steering-disabled', queuedMs: 2_000, settledAt: new Date(3_000).toISOString() }),
    ]);
  });
});
