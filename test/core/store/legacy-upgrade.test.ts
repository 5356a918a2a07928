/**
 * Upgrade without loss: `serve` started on a data directory an earlier version left when it was
 * killed mid-burst (fixtures/upgrade: its hook intake log and commit journal hold acknowledged
 * hooks the database does not) finds every acknowledged hook's events, removes the old files and
 * their marks, and a second start changes nothing. A torn or garbled tail is ignored with a reason.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { readLegacyIntake, readLegacyJournal } from '../../../main/core/store/legacy-upgrade';
import { ready, spawnServe, type ServeChild } from '../serve/serve-process';

const fixture = fileURLToPath(new URL('./fixtures/upgrade/', import.meta.url));
const acked = JSON.parse(readFileSync(join(fixture, 'acked.json'), 'utf8')) as { session: string; hook: string }[];

const dirs: string[] = [];
const children: ServeChild[] = [];
afterEach(() => {
  for (const c of children.splice(0)) if (c.child.exitCode === null && c.child.signalCode === null) c.child.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A fresh copy of the fixture's data directory. */
function copyFixture(): string {
  const dir = mkdtempSync(join(tmpdir(), 'aep-upgrade-'));
  dirs.push(dir);
  execFileSync('tar', ['-xzf', join(fixture, 'data.tar.gz'), '-C', dir]);
  return dir;
}

/** Starts `serve` on `dataDir`, waits until it serves, stops it; its stderr. */
async function startAndStop(dataDir: string): Promise<string> {
  const s = spawnServe(['--port', '0', '--data-dir', dataDir]);
  children.push(s);
  await ready(s);
  s.child.kill('SIGTERM');
  expect(await s.exited).toBe(0);
  return s.stderr;
}

/**
 * The hooks whose events the database holds, as `<session> <hook>` (the fixture's hooks carry
 * their number in the prompt, the tool call id or the notification text).
 */
function storedHooks(dataDir: string): { keys: Set<string>; events: number; tables: string[] } {
  const db = new BetterSqlite3(join(dataDir, 'companion.db'), { readonly: true });
  try {
    const keys = new Set<string>();
    for (const r of db.prepare('SELECT session, type, json FROM events').all() as { session: string; type: string; json: string }[]) {
      const data = (JSON.parse(r.json) as { data?: Record<string, unknown> }).data ?? {};
      const tool = data.tool as { call_id?: string } | undefined;
      const hook =
        r.type === 'session.started'
          ? 'SessionStart'
          : r.type === 'run.started' && typeof data.prompt === 'string'
            ? `UserPromptSubmit#${data.prompt.split(' ')[1]}`
            : r.type === 'tool.requested'
              ? `PreToolUse#${tool?.call_id?.slice(3)}`
              : r.type === 'tool.completed'
                ? `PostToolUse#${tool?.call_id?.slice(3)}`
                : r.type === 'progress.status' && typeof data.message === 'string'
                  ? `Notification#${data.message.split(' ')[1]}`
                  : null;
      if (hook !== null) keys.add(`${r.session} ${hook}`);
    }
    const events = db.prepare('SELECT count(*) FROM events').pluck().get() as number;
    const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").pluck().all() as string[];
    return { keys, events, tables };
  } finally {
    db.close();
  }
}

const missing = (keys: Set<string>): string[] => acked.map((a) => `${a.session} ${a.hook}`).filter((k) => !keys.has(k));

describe('upgrade of a data directory an earlier version left', () => {
  it('the fixture holds acknowledged hooks the database does not', () => {
    const dir = copyFixture();
    expect(missing(storedHooks(dir).keys).length).toBeGreaterThan(0);
    expect(readLegacyJournal(readFileSync(join(dir, 'companion.db-turns'))).records.length).toBeGreaterThan(0);
    expect(readLegacyIntake(readFileSync(join(dir, 'companion.db-hooks'))).records.length).toBeGreaterThan(0);
  });

  it('finds every acknowledged hook after the first start, removes the old files and marks, and a second start is a no-op', async () => {
    const dir = copyFixture();
    const stderr = await startAndStop(dir);
    expect(stderr).toContain('applied the commit journal');
    const first = storedHooks(dir);
    expect(missing(first.keys)).toEqual([]);
    expect(existsSync(join(dir, 'companion.db-turns'))).toBe(false);
    expect(existsSync(join(dir, 'companion.db-hooks'))).toBe(false);
    expect(first.tables).not.toContain('commit_journal');
    expect(first.tables).not.toContain('intake_marks');

    const again = await startAndStop(dir);
    expect(again).not.toContain('earlier version');
    const second = storedHooks(dir);
    expect(second.events).toBe(first.events);
    expect(missing(second.keys)).toEqual([]);
  });

  it('starts on a journal cut short inside a record and an intake log whose last record is garbled, saying why it ignores them', async () => {
    const dir = copyFixture();
    const before = storedHooks(dir);
    const turns = join(dir, 'companion.db-turns');
    const bytes = readFileSync(turns);
    // Cut inside the second record: the first one stays whole.
    const secondAt = 8 + bytes.readUInt32LE(0);
    truncateSync(turns, secondAt + 20);
    const hooks = join(dir, 'companion.db-hooks');
    const intake = readFileSync(hooks);
    const { end } = readLegacyIntake(intake);
    intake[end - 2] ^= 0xff;
    writeFileSync(hooks, intake);

    const stderr = await startAndStop(dir);
    expect(stderr).toContain('what follows is ignored');
    expect(stderr).toMatch(/applied the commit journal.*"applied":1/);
    const after = storedHooks(dir);
    expect(after.events).toBeGreaterThan(before.events);
    expect([...before.keys].filter((k) => !after.keys.has(k))).toEqual([]);
    expect(existsSync(turns)).toBe(false);
    expect(existsSync(hooks)).toBe(false);
  });
});
