/**
 * The intake log: after a kill -9, the records past the durable mark come back at open, each
 * once, in order, whatever the file's past (a torn record, an older generation behind the new),
 * with the file's start memory-mapped (records copied into the page cache) and without (pwrite).
 */
import { spawnSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, truncateSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fileMapRefusal } from '../../../main/core/store/file-map';
import { INTAKE_MAP_BYTES, IntakeLog, readIntake } from '../../../main/core/store/intake-log';
import { openDb } from '../../../main/core/store/open-db';

const killChild = fileURLToPath(new URL('./fixtures/intake-kill.ts', import.meta.url));
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function place(): { file: string; path: string } {
  const dir = mkdtempSync(join(tmpdir(), 'aep-intake-'));
  dirs.push(dir);
  return { file: join(dir, 'companion.db'), path: join(dir, 'companion.db-hooks') };
}

/** Whether the variant being run maps the log (set by each `describe` below). */
let mapping = true;
/** Where the memory map can be had here (the optional module built, plain Node, Linux or macOS). */
const canMap = fileMapRefusal() === undefined;

/** Runs the kill child over the files with these steps; the sequences it appended. */
function killed(file: string, path: string, ...steps: string[]): number[] {
  const child = spawnSync(process.execPath, ['--import', 'tsx', killChild, file, path, ...steps], {
    encoding: 'utf8',
    env: { ...process.env, INTAKE_MAP: mapping ? '1' : '0' },
  });
  expect(child.signal, child.stderr).toBe('SIGKILL');
  expect(child.stdout.split('\n')[0]).toBe(`mapped:${mapping && canMap}`);
  return child.stdout
    .split('\n')
    .filter((line) => /^\d+$/.test(line))
    .map(Number);
}

/** Opens the files as the daemon does next: the records past the mark, as text, and their sequences. */
function reopen(file: string, path: string, then?: (log: IntakeLog) => void): { texts: string[]; seqs: number[] } {
  const db = openDb(file, { deferCommits: {} });
  try {
    const { log, unconsumed } = IntakeLog.open(db, 'hooks', path, { map: mapping });
    then?.(log);
    log.close();
    return { texts: unconsumed.map((r) => r.body.toString().split('\n')[2]), seqs: unconsumed.map((r) => r.seq) };
  } finally {
    db.close();
  }
}

describe.each([
  ['mapped', true],
  ['written', false],
])('intake log (%s)', (_name, map) => {
  beforeEach(() => {
    mapping = map;
  });

  it('hands back every record past the durable mark after a kill -9, in order', () => {
    const { file, path } = place();
    expect(killed(file, path, 'a:a', 'a:b', 'a:c', 'c:2')).toEqual([1, 2, 3]);
    expect(reopen(file, path)).toEqual({ texts: ['c'], seqs: [3] });
  });

  it('hands the records back again when their mark never reached the journal', () => {
    const { file, path } = place();
    killed(file, path, 'a:a', 'a:b');
    expect(reopen(file, path).texts).toEqual(['a', 'b']);
  });

  it('numbers on after the last record, so a later mark never covers an unhandled one', () => {
    const { file, path } = place();
    killed(file, path, 'a:a', 'a:b', 'c:1');
    let appended = 0;
    reopen(file, path, (log) => {
      appended = log.append([Buffer.from('claude-code\n1\nc')]);
    });
    expect(appended).toBe(3);
    expect(reopen(file, path).texts).toEqual(['b', 'c']);
  });

  it('ignores a torn last record (never acknowledged)', () => {
    const { file, path } = place();
    killed(file, path, 'a:a', 'a:bbbbbbbb');
    const { end } = readIntake(readFileSync(path));
    if (end === statSync(path).size) truncateSync(path, end - 3);
    else {
      // A mapped file is longer than its records: a store cut short leaves the old bytes (zeros).
      const fd = openSync(path, 'r+');
      writeSync(fd, Buffer.alloc(3), 0, 3, end - 3);
      closeSync(fd);
    }
    expect(reopen(file, path).texts).toEqual(['a']);
  });

  it('writes from the start again once every record is consumed, and never reads what the older generation left', () => {
    const { file, path } = place();
    expect(killed(file, path, 'a:aaaa', 'a:bbbb', 'a:cccc', 'c:3', 'a:d')).toEqual([1, 2, 3, 4]);
    // The new generation overwrote the first record's place; the stale records behind it are not read.
    const { records, end } = readIntake(readFileSync(path));
    expect(records.map((r) => r.seq)).toEqual([4]);
    expect(end).toBeLessThan(statSync(path).size);
    expect(reopen(file, path)).toEqual({ texts: ['d'], seqs: [4] });
  });

  it('keeps every record when the log runs past the mapped start of the file', () => {
    const { file, path } = place();
    // Nothing consumed: 1,100 records of 4 KiB run past the map's 4 MiB, the last ones written with pwrite.
    const count = Math.ceil(INTAKE_MAP_BYTES / 4096) + 76;
    expect(killed(file, path, `n:${count}:4096`, 'a:last')).toEqual([count + 1]);
    expect(statSync(path).size).toBeGreaterThan(INTAKE_MAP_BYTES);
    const after = reopen(file, path);
    expect(after.seqs).toEqual(Array.from({ length: count + 1 }, (_, i) => i + 1));
    expect(after.texts[count]).toBe('last');
    expect(new Set(after.texts.slice(0, count))).toEqual(new Set(['x'.repeat(4096)]));
  });

  it('under steady load, moves the records a durable mark does not cover to the start, so the file stops growing', () => {
    const { file, path } = place();
    // 300 records of 4 KiB (past the 1 MiB rewind point), 290 consumed: the 10 others move to the start.
    expect(killed(file, path, 'n:300:4096', 'c:290', 'a:next')).toEqual([301]);
    const size = statSync(path).size;
    expect(size).toBeGreaterThan(1024 * 1024);
    const { records, end } = readIntake(readFileSync(path));
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 11 }, (_, i) => 291 + i));
    expect(end).toBeLessThan(64 * 1024);
    const after = reopen(file, path);
    expect(after.seqs).toEqual(Array.from({ length: 11 }, (_, i) => 291 + i));
    expect(after.texts[10]).toBe('next');
    expect(after.texts[0]).toBe('x'.repeat(4096));
  });

  it('moves the records a mark does not cover to the start from past the mapped part of the file too', () => {
    const { file, path } = place();
    const count = Math.ceil(INTAKE_MAP_BYTES / 4096) + 76;
    // All but the last ten consumed: those ten lie past the map's end (written with pwrite).
    expect(killed(file, path, `n:${count}:4096`, `c:${count - 10}`, 'a:next')).toEqual([count + 1]);
    const { records, end } = readIntake(readFileSync(path));
    expect(records.map((r) => r.seq)).toEqual(Array.from({ length: 11 }, (_, i) => count - 9 + i));
    expect(end).toBeLessThan(64 * 1024);
    const after = reopen(file, path);
    expect(after.texts[10]).toBe('next');
    expect(after.texts.slice(0, 10)).toEqual(Array.from({ length: 10 }, () => 'x'.repeat(4096)));
  });

  it('keeps the mark across a COMMIT of the deferred transaction', () => {
    const { file, path } = place();
    killed(file, path, 'a:a', 'a:b', 'c:1', '|', 'a:c');
    expect(reopen(file, path).texts).toEqual(['b', 'c']);
  });

  it('refuses a record over the limit and writes nothing', () => {
    const { file, path } = place();
    const db = openDb(file);
    try {
      const { log } = IntakeLog.open(db, 'hooks', path, { map });
      expect(() => log.append([Buffer.alloc(64 * 1024 * 1024 + 1)])).toThrow(/over the limit/);
      expect(log.append([Buffer.from('claude-code\n1\nx')])).toBe(1);
      log.close();
    } finally {
      db.close();
    }
  });
});

describe('the intake log\'s memory map', () => {
  const installed = (() => {
    try {
      createRequire(import.meta.url).resolve('@riaskov/mmap-io');
      return true;
    } catch {
      return false;
    }
  })();

  it.runIf(installed && process.platform === 'linux')('is used on Linux under plain Node when the optional module is installed', () => {
    expect(fileMapRefusal()).toBeUndefined();
  });

  it('is refused when AEP_FILE_MAP=0 is set, and the log then writes', () => {
    expect(fileMapRefusal({ AEP_FILE_MAP: '0' })).toBe('AEP_FILE_MAP=0');
  });

  it('grows a new log to the mapped size with zeros, which read as no record', () => {
    const { file, path } = place();
    const db = openDb(file);
    try {
      const { log } = IntakeLog.open(db, 'hooks', path);
      if (!log.mapped) return;
      expect(statSync(path).size).toBe(INTAKE_MAP_BYTES);
      expect(readIntake(readFileSync(path)).records).toEqual([]);
      expect(log.append([Buffer.from('claude-code\n1\nx')])).toBe(1);
      // The copy is in the page cache: a reader of the file sees it before any close or sync.
      expect(readIntake(readFileSync(path)).records.map((r) => r.body.toString())).toEqual(['claude-code\n1\nx']);
      log.close();
    } finally {
      db.close();
    }
  });
});
