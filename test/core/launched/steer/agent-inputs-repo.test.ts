import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MidTurnToggle } from '../../../../main/core/launched/steer/toggle';
import { AgentInputsRepo, type NewInput } from '../../../../main/core/store/inputs-repo';
import { AuditLog } from '../../../../main/core/store/audit-log';
import { openDb } from '../../../../main/core/store/open-db';
import { SettingsRepo } from '../../../../main/core/store/settings-repo';
import { auditSink } from '../../../../main/core/steering/audit-sink';
import { createLogger } from '../../../../main/core/logger';
import { tempDir } from '../../store/temp-db';

let tmp: ReturnType<typeof tempDir>;
let db: Database;
let repo: AgentInputsRepo;

const input = (commandId: string, extra: Partial<NewInput> = {}): NewInput => ({
  commandSource: 'urn:test:console',
  commandId,
  agent: 'claude-code',
  session: 's1',
  text: `text of ${commandId}`,
  delivery: 'queue',
  actor: 'operator',
  surface: 'console',
  planned: 'prompted',
  ...extra,
});

beforeEach(() => {
  tmp = tempDir();
  db = openDb(tmp.file());
  repo = new AgentInputsRepo(db);
});
afterEach(() => {
  db.close();
  tmp.cleanup();
});

describe('AgentInputsRepo', () => {
  it('records a message once (a retried command is not a second message) and queues in submission order', () => {
    expect(repo.accept(input('a'), 1000)).toBe(true);
    expect(repo.accept(input('a'), 1001)).toBe(false);
    repo.accept(input('b'), 1002);
    expect(repo.queued('s1').map((r) => [r.commandId, r.position])).toEqual([
      ['a', 0],
      ['b', 1],
    ]);
  });

  it('a steer: queued → sent (rpc id, run, mechanism) → settled with its outcome, timestamps kept', () => {
    repo.accept(input('a', { delivery: 'now' }), 1000);
    expect(
      repo.markSent('s1', 'a', { rpcId: '4', run: 'run-3', mechanism: 'concurrent-prompt' }, 1500),
    ).toMatchObject({
      ok: true,
      value: {
        state: 'sent',
        rpcId: '4',
        run: 'run-3',
        mechanism: 'concurrent-prompt',
        position: null,
      },
    });
    const settled = repo.settle('s1', 'a', 'steered', 'folded', 2000);
    expect(settled).toMatchObject({
      ok: true,
      value: { state: 'settled', outcome: 'steered', reason: 'folded', run: 'run-3' },
    });
    expect(
      settled.ok && [settled.value.queuedAt, settled.value.sentAt, settled.value.settledAt],
    ).toEqual([
      new Date(1000).toISOString(),
      new Date(1500).toISOString(),
      new Date(2000).toISOString(),
    ]);
    // Settled once: never again, never re-sent.
    expect(repo.settle('s1', 'a', 'errored', null, 3000)).toMatchObject({
      ok: false,
      error: { code: 'illegal-transition' },
    });
    expect(repo.markSent('s1', 'a', {}, 3000)).toMatchObject({ ok: false });
  });

  it('an ordinary prompt settles with its planned outcome when sent', () => {
    repo.accept(input('a', { planned: 'degraded' }), 1000);
    expect(repo.markPrompted('s1', 'a', { rpcId: '5', run: 'r5' }, 1100)).toMatchObject({
      ok: true,
      value: { outcome: 'degraded', run: 'r5' },
    });
  });

  it('edit, reorder and withdraw apply only to queued messages', () => {
    for (const id of ['a', 'b', 'c']) repo.accept(input(id), 1000);
    expect(repo.edit('s1', 'b', 'better text', 1100)).toMatchObject({
      ok: true,
      value: { text: 'better text', edits: 1 },
    });
    expect(repo.edit('s1', 'b', '  ', 1100)).toMatchObject({
      ok: false,
      error: { code: 'invalid-text' },
    });
    expect(repo.reorder('s1', ['c', 'a', 'b'])).toMatchObject({ ok: true });
    expect(repo.queued('s1').map((r) => r.commandId)).toEqual(['c', 'a', 'b']);
    expect(repo.reorder('s1', ['c', 'a'])).toMatchObject({
      ok: false,
      error: { code: 'invalid-order' },
    });
    expect(repo.reorder('s1', ['c', 'a', 'a'])).toMatchObject({ ok: false });
    expect(repo.withdraw('s1', 'a', 1200)).toMatchObject({
      ok: true,
      value: { outcome: 'dropped', reason: 'withdrawn' },
    });
    expect(repo.queued('s1').map((r) => r.commandId)).toEqual(['c', 'b']);
    repo.markSent('s1', 'c', {}, 1300);
    expect(repo.edit('s1', 'c', 'late', 1400)).toMatchObject({
      ok: false,
      error: { code: 'illegal-transition' },
    });
    expect(repo.withdraw('s1', 'c', 1400)).toMatchObject({
      ok: false,
      error: { code: 'illegal-transition' },
    });
    expect(repo.edit('s1', 'zzz', 'x', 1400)).toMatchObject({
      ok: false,
      error: { code: 'not-found' },
    });
  });

  it('stop and send goes ahead of the queue; a refused steer goes back to the head', () => {
    repo.accept(input('a'), 1000);
    repo.accept(input('stop', { delivery: 'stop', at: 'front' }), 1001);
    expect(repo.queued('s1').map((r) => r.commandId)).toEqual(['stop', 'a']);
    repo.accept(input('steer', { delivery: 'now' }), 1002);
    repo.markSent('s1', 'steer', { mechanism: 'session-steering' }, 1003);
    expect(repo.requeue('s1', 'steer', 'degraded', 'no running turn', 1004)).toMatchObject({
      ok: true,
      value: { state: 'queued', position: 0 },
    });
    expect(repo.queued('s1').map((r) => r.commandId)).toEqual(['steer', 'stop', 'a']);
  });

  it('after a restart: a sent steer settles interrupted, queued input of a session that did not survive is dropped, nothing re-sent', () => {
    repo.accept(input('sent', { delivery: 'now' }), 1000);
    repo.markSent('s1', 'sent', { rpcId: '4' }, 1001);
    repo.accept(input('q1'), 1002);
    repo.accept(input('q2', { session: 's2' }), 1003);
    db.close();
    db = openDb(tmp.file());
    repo = new AgentInputsRepo(db);
    const settled = repo.settleAfterRestart((session) => session === 's2', 5000);
    expect(settled.map((r) => [r.commandId, r.outcome, r.reason])).toEqual([
      ['sent', 'interrupted', 'daemon restarted before the outcome was known; not re-sent'],
      ['q1', 'dropped', 'session-not-resumed'],
    ]);
    expect(repo.queued('s2').map((r) => r.commandId)).toEqual(['q2']);
    expect(repo.settleAfterRestart(() => false, 6000).map((r) => r.commandId)).toEqual(['q2']);
    expect(repo.settleAfterRestart(() => false, 7000)).toEqual([]);
  });

  it('the table refuses a settled row without an outcome', () => {
    expect(() => db.prepare("UPDATE agent_inputs SET state = 'settled'").run()).not.toThrow();
    repo.accept(input('x'), 1);
    expect(() =>
      db.prepare("UPDATE agent_inputs SET state = 'settled' WHERE command_id = 'x'").run(),
    ).toThrow(/CHECK/);
  });
});

describe('MidTurnToggle', () => {
  let settings: SettingsRepo;
  let audit: AuditLog;
  const sink = () => auditSink(audit, () => 1_000, createLogger('test'));

  beforeEach(() => {
    settings = new SettingsRepo(db);
    audit = new AuditLog(db);
  });

  it('is off by default and in force only under the kill switch; every flip is audited and heard at once', () => {
    const toggle = new MidTurnToggle(settings, sink());
    const heard: boolean[] = [];
    toggle.onChange((on) => heard.push(on));
    expect(toggle.enabled).toBe(false);
    expect(toggle.set(true, { actor: 'operator', surface: 'cli' })).toMatchObject({
      ok: true,
      value: { enabled: false, setting: true },
    });
    expect(audit.query({ action: 'mid-turn-steering.enabled' }).rows[0]).toMatchObject({
      surface: 'cli',
      outcome: 'ok',
    });
    settings.set({ 'features.steering': true });
    expect(toggle.enabled).toBe(true);
    settings.set({ 'features.steering': false });
    expect(toggle.enabled).toBe(false);
    expect(heard).toEqual([true, false]);
    toggle.set(true, { actor: 'operator', surface: 'console' });
    expect(
      audit.query({ action: 'mid-turn-steering.enabled', outcome: 'unchanged' }).rows,
    ).toHaveLength(1);
    expect(toggle.set('yes', { actor: 'operator', surface: 'api' })).toMatchObject({
      ok: false,
      error: { code: 'invalid-request' },
    });
    toggle.close();
  });

  it('the host override wins over the stored setting but not over the kill switch', () => {
    settings.set({ 'features.steering': true });
    const forcedOn = new MidTurnToggle(settings, sink(), true);
    expect(forcedOn.state()).toEqual({
      enabled: true,
      setting: false,
      override: true,
      steering: true,
    });
    const forcedOff = new MidTurnToggle(settings, sink(), false);
    settings.set({ 'features.midTurnSteering': true });
    expect(forcedOff.enabled).toBe(false);
    settings.set({ 'features.steering': false });
    expect(forcedOn.enabled).toBe(false);
    forcedOn.close();
    forcedOff.close();
  });
});
