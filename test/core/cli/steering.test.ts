/** `aep-companion steering on|off|status`: through a running daemon's /api, or straight into the database. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { steering } from '../../../main/cli/commands/steering';
import { AuditLog } from '../../../main/core/store/audit-log';
import { openDb } from '../../../main/core/store/open-db';
import { SettingsRepo } from '../../../main/core/store/settings-repo';
import { ccPayload, Consumer, postHook, removeDataDir, startHooksDaemon, TestClock, type HooksDaemon } from '../hooks/hooks-harness';

const dirs: string[] = [];
let d: HooksDaemon | undefined;
afterEach(async () => {
  if (d) {
    await d.close();
    removeDataDir(d.dataDir);
    d = undefined;
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const tempDataDir = (): string => {
  const dir = mkdtempSync(join(tmpdir(), 'aep-steering-cli-'));
  dirs.push(dir);
  return join(dir, 'data');
};

describe('aep-companion steering', () => {
  it('writes the setting and an audit row to the database when no daemon runs', async () => {
    const dataDir = tempDataDir();
    expect(await steering(dataDir, true, {})).toMatchObject({ code: 0, path: 'database', message: expect.stringContaining('on') });
    expect(await steering(dataDir, null, {})).toMatchObject({ code: 0, message: 'steering is on' });
    const db = openDb(join(dataDir, 'companion.db'));
    try {
      expect(new SettingsRepo(db).get('features.steering')).toBe(true);
      expect(new AuditLog(db).query({ action: 'steering.enabled' }).rows[0]).toMatchObject({ actor: 'operator', surface: 'cli', outcome: 'ok' });
    } finally {
      db.close();
    }
  });

  it('falls back to the database when daemon.json names a daemon that is gone', async () => {
    const dataDir = tempDataDir();
    await steering(dataDir, false, {});
    writeFileSync(join(dataDir, 'daemon.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: 1 }));
    expect(await steering(dataDir, true, {})).toMatchObject({ code: 0, path: 'database' });
  });

  it('flips a running daemon through its /api, effective at once and audited with the cli surface', async () => {
    d = await startHooksDaemon({ clock: new TestClock() });
    writeFileSync(join(d.dataDir, 'daemon.json'), JSON.stringify({ url: d.url, pid: process.pid }));
    await postHook(d.url, d.daemon.tokens.hook, 'claude-code', ccPayload('SessionStart', 's1'), { instruct: true });
    const c = await Consumer.open(d.url, d.daemon.tokens.operator);
    try {
      expect(await steering(d.dataDir, true, {})).toMatchObject({ code: 0, path: 'api', message: 'steering is on' });
      const entry = (await c.roster()).find((e) => e.session === 's1');
      expect((entry?.control as { accepts: string[] }).accepts).toEqual(['x.claude-code.control.instruct']);
      expect(await steering(d.dataDir, false, {})).toMatchObject({ code: 0, path: 'api', message: 'steering is off' });
      expect(((await c.roster()).find((e) => e.session === 's1')?.control as { accepts: string[] }).accepts).toEqual([]);
    } finally {
      c.close();
    }
    const audit = d.daemon.context.audit.query({ surface: 'cli' }).rows.map((r) => r.action);
    expect(audit).toEqual(['steering.disabled', 'steering.enabled']);
  });

  it('never writes the database while a daemon holds the data directory, even when daemon.json is stale', async () => {
    d = await startHooksDaemon({ clock: new TestClock() });
    // daemon.json names a URL nobody answers at and a pid that is gone (e.g. left by a kill -9),
    // but this daemon holds the lock: the refusal never names the dead pid.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid!;
    writeFileSync(join(d.dataDir, 'daemon.json'), JSON.stringify({ url: 'http://127.0.0.1:9', pid: dead }));
    const outcome = await steering(d.dataDir, true, {});
    expect(outcome.code).toBe(1);
    expect(outcome.message).not.toContain(`pid ${dead}`);
    expect(outcome.message).toContain('nothing was changed');
    expect(outcome.message.split('\n')).toHaveLength(1);
    // The one source of truth is untouched: the running daemon still says off, and nothing was audited.
    expect(d.parts.killSwitch.enabled).toBe(false);
    expect(d.daemon.context.settings.get('features.steering')).toBe(false);
    expect(d.daemon.context.audit.query({ surface: 'cli' }).rows).toEqual([]);
    const db = openDb(join(d.dataDir, 'companion.db'));
    try {
      expect(new SettingsRepo(db).get('features.steering')).toBe(false);
    } finally {
      db.close();
    }
  });

  it('refuses to write behind the back of an AEP_COMPANION_URL that does not answer', async () => {
    const dataDir = tempDataDir();
    const outcome = await steering(dataDir, true, { AEP_COMPANION_URL: 'http://127.0.0.1:9' });
    expect(outcome).toMatchObject({ code: 1, message: expect.stringContaining('no daemon answers') });
    expect(await steering(dataDir, null, {})).toMatchObject({ message: 'steering is off' });
  });
});
