import type { Database } from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_SETTINGS, type SettingKey } from '../../../common/settings';
import { openDb } from '../../../main/core/store/open-db';
import { SettingsRepo } from '../../../main/core/store/settings-repo';
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

describe('SettingsRepo', () => {
  it('serves the defaults for settings never set', () => {
    const repo = new SettingsRepo(db);
    expect(repo.all()).toEqual(DEFAULT_SETTINGS);
    expect(repo.get('retention.maxEventsPerSession')).toBe(
      DEFAULT_SETTINGS['retention.maxEventsPerSession'],
    );
  });

  it('stores valid changes durably: a new repo on a reopened file reads them back', () => {
    const repo = new SettingsRepo(db);
    const result = repo.set({
      'features.steering': true,
      'capture.ceiling': 'full',
      'setup.completedAt': '2026-11-29T19:00:00.000Z',
    });
    expect(result.ok && result.value['features.steering']).toBe(true);
    db.close();
    db = openDb(tmp.file());
    const reopened = new SettingsRepo(db);
    expect(reopened.get('features.steering')).toBe(true);
    expect(reopened.get('capture.ceiling')).toBe('full');
    expect(reopened.get('setup.completedAt')).toBe('2026-11-29T19:00:00.000Z');
    expect(reopened.get('ui.theme')).toBe('system');
  });

  it.each<[string, unknown, RegExp]>([
    ['features.steering', 'yes', /true or false/],
    ['capture.ceiling', 'everything', /one of 'none', 'metadata', 'redacted', 'full'/],
    ['retention.maxEventsPerSession', 0, /integer from 1/],
    ['retention.maxEventsPerSession', 2.5, /integer/],
    ['server.port', 70_000, /integer from 1 to 65535/],
    ['permissions.holdMs', '50000', /integer/],
    ['ui.theme', 'neon', /'system', 'light', 'dark'/],
    ['setup.completedAt', 'yesterday', /ISO 8601/],
  ])('refuses %s = %j with an invalid-setting message naming the key', (key, value, pattern) => {
    const repo = new SettingsRepo(db);
    const result = repo.set({ [key]: value });
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('invalid-setting');
    expect(result.error.message).toContain(key);
    expect(result.error.message).toMatch(pattern);
    expect(repo.get(key as SettingKey)).toEqual(DEFAULT_SETTINGS[key as SettingKey]);
  });

  it('refuses unknown keys and applies nothing of a partly bad update', () => {
    const repo = new SettingsRepo(db);
    const unknown = repo.set({ 'ui.theme': 'dark', 'ui.fontSize': 14 });
    expect(unknown).toMatchObject({ ok: false, error: { code: 'unknown-setting' } });
    const bad = repo.set({ 'ui.theme': 'dark', 'server.port': -1 });
    expect(bad.ok).toBe(false);
    expect(repo.get('ui.theme')).toBe('system');
    expect((db.prepare('SELECT COUNT(*) AS n FROM settings').get() as { n: number }).n).toBe(0);
  });

  it('calls change listeners after a successful set with only the keys whose value changed', () => {
    const repo = new SettingsRepo(db);
    const heard: { keys: readonly SettingKey[]; steering: boolean; stored: boolean }[] = [];
    repo.onChange((keys, settings) => {
      const row = db.prepare(`SELECT value FROM settings WHERE key = 'features.steering'`).get() as
        { value: string } | undefined;
      heard.push({ keys, steering: settings['features.steering'], stored: row?.value === 'true' });
    });
    repo.set({ 'features.steering': true, 'ui.theme': 'system' });
    repo.set({ 'features.steering': true }); // no change: no call
    repo.set({ 'server.port': 'x' }); // refused: no call
    expect(heard).toEqual([{ keys: ['features.steering'], steering: true, stored: true }]);
  });

  it('stops calling a listener after it unsubscribes', () => {
    const repo = new SettingsRepo(db);
    let calls = 0;
    const off = repo.onChange(() => (calls += 1));
    repo.set({ 'ui.notifications': false });
    off();
    repo.set({ 'ui.notifications': true });
    expect(calls).toBe(1);
  });

  it('still notifies the other listeners when one throws, and reports the failure', () => {
    const failures: unknown[] = [];
    const repo = new SettingsRepo(db, { onListenerError: (e) => failures.push(e) });
    const heard: string[] = [];
    repo.onChange(() => {
      throw new Error('listener broke');
    });
    repo.onChange((keys) => heard.push(...keys));
    expect(repo.set({ 'ui.theme': 'dark' }).ok).toBe(true);
    expect(heard).toEqual(['ui.theme']);
    expect(failures).toHaveLength(1);
  });

  it('falls back to the default for a stored value that no longer validates', () => {
    db.prepare(
      `INSERT INTO settings (key, value) VALUES ('server.port', '"not a port"'), ('ui.theme', 'not json'), ('gone.key', '1')`,
    ).run();
    const repo = new SettingsRepo(db);
    expect(repo.get('server.port')).toBe(DEFAULT_SETTINGS['server.port']);
    expect(repo.get('ui.theme')).toBe('system');
    expect(Object.keys(repo.all())).not.toContain('gone.key');
  });
});
