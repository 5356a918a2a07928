/**
 * The upgrade of a data directory an earlier version wrote: that version kept two files beside the
 * database, and what they hold past their marks was acknowledged and not yet in the database.
 *
 * - `<database>-turns`, a commit journal: group commits as their write statements and arguments,
 *   the last one applied recorded in table `commit_journal` (migration 0130). `openDb` applies the
 *   records past the mark before it migrates (the statements are written for that schema), in one
 *   transaction that also moves the mark, then removes the file.
 * - `<database>-hooks`, a hook intake log: hook calls answered before they were handled, the last
 *   one handled recorded in table `intake_marks` (migration 0140). The hooks feature handles the
 *   records past the mark through the hook service at start (`LegacyHooks`), their mark in the same
 *   group commit as their events, then removes the file.
 *
 * Each step is idempotent: the marks say what is in the database, so a start cut short by a crash
 * applies the rest next time, and once a file is gone its table goes too. A torn or garbled tail
 * (a write cut short, which was never acknowledged) ends a file's records, and is reported.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { Database, Statement } from 'better-sqlite3';
import { parseBoundedJson } from '../aep/bounded-json';
import { StoreError, toStoreError } from './store-error';
import { turnCommitOf, type TurnWriter } from './turn-commit';

/** Hears what the upgrade did or skipped (the daemon logs it). */
export type LegacyReport = (message: string, fields: Record<string, unknown>) => void;

/** An earlier version's commit journal of the database `file`. */
export const legacyJournalPath = (file: string): string => `${file}-turns`;
/** An earlier version's hook intake log of the database `file`. */
export const legacyIntakePath = (file: string): string => `${file}-hooks`;

const hasTable = (db: Database, name: string): boolean =>
  db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?").get(name) !== undefined;

/** Drops the marks table of a file that is gone (a database a newer version created has neither). */
export function dropLegacyMarks(db: Database, file: string): void {
  if (!existsSync(legacyJournalPath(file)) && hasTable(db, 'commit_journal')) db.exec('DROP TABLE commit_journal');
  if (!existsSync(legacyIntakePath(file)) && hasTable(db, 'intake_marks')) db.exec('DROP TABLE intake_marks');
}

function readIfThere(path: string): Buffer | null {
  try {
    return readFileSync(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

const TAIL =
  'an earlier version\'s log is read up to its last whole record; what follows is ignored (left by an earlier generation of the file, or a write cut short, never acknowledged)';

/** Whether anything but zeros (a mapped file's unwritten end) follows `at`. */
const dataAfter = (bytes: Buffer, at: number): boolean => bytes.subarray(at).some((b) => b !== 0);

// ---- the commit journal -------------------------------------------------------------------------

/** One journal record: its sequence, the statements it names first (id → SQL), its writes. */
interface JournalRecord {
  readonly seq: number;
  readonly defs: ReadonlyMap<number, string>;
  readonly writes: readonly (readonly [id: number, kind: number, args: unknown[]])[];
}

/**
 * The journal's whole records, in order, and where they end. A record is a frame (u32 payload
 * length, u32 CRC-32 of the payload) around: f64 sequence · u16 definitions · [u16 id · string
 * SQL]… · u32 writes · [u16 id · u8 kind (0 run, 1 all) · u8 argument count · value…]…
 */
export function readLegacyJournal(bytes: Buffer): { records: JournalRecord[]; end: number } {
  const records: JournalRecord[] = [];
  let at = 0;
  while (at + 8 <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    if (at + 8 + length > bytes.length) break;
    const payload = bytes.subarray(at + 8, at + 8 + length);
    if (crc32(payload) !== bytes.readUInt32LE(at + 4)) break;
    try {
      records.push(new JournalReader(payload).record());
    } catch {
      break;
    }
    at += 8 + length;
  }
  return { records, end: at };
}

class JournalReader {
  private at = 0;
  constructor(private readonly b: Buffer) {}

  record(): JournalRecord {
    const seq = this.b.readDoubleLE(this.at);
    this.at += 8;
    const defs = new Map<number, string>();
    for (let n = this.u16(); n > 0; n--) defs.set(this.u16(), this.string());
    const writes: [number, number, unknown[]][] = [];
    let count = this.b.readUInt32LE(this.at);
    this.at += 4;
    for (; count > 0; count--) {
      const id = this.u16();
      const kind = this.b[this.at];
      let argc = this.b[this.at + 1];
      this.at += 2;
      if (kind !== 0 && kind !== 1) throw new Error('bad kind');
      const args: unknown[] = [];
      for (; argc > 0; argc--) args.push(this.value(true));
      writes.push([id, kind, args]);
    }
    if (this.at !== this.b.length || !Number.isSafeInteger(seq)) throw new Error('bad record');
    return { seq, defs, writes };
  }

  private u16(): number {
    const n = this.b.readUInt16LE(this.at);
    this.at += 2;
    return n;
  }

  private u32(): number {
    const n = this.b.readUInt32LE(this.at);
    this.at += 4;
    if (this.at + n > this.b.length) throw new Error('bad length');
    return n;
  }

  private string(): string {
    const n = this.u32();
    const s = this.b.toString('utf8', this.at, this.at + n);
    this.at += n;
    return s;
  }

  /** A value: 0 null, 1 undefined, 2 f64, 3 string, 4 bigint, 5 bytes, 6 array, 7 named parameters. */
  private value(top: boolean): unknown {
    const type = this.b[this.at++];
    if (type === 0) return null;
    if (type === 1) return undefined;
    if (type === 2) {
      const v = this.b.readDoubleLE(this.at);
      this.at += 8;
      return v;
    }
    if (type === 3) return this.string();
    if (type === 4) return BigInt(this.string());
    if (type === 5) {
      const n = this.u32();
      const v = Buffer.from(this.b.subarray(this.at, this.at + n));
      this.at += n;
      return v;
    }
    if (type === 6 && top) return Array.from({ length: this.u16() }, () => this.value(false));
    if (type === 7 && top) {
      const named: Record<string, unknown> = {};
      for (let n = this.u16(); n > 0; n--) {
        const key = this.string();
        named[key] = this.value(false);
      }
      return named;
    }
    throw new Error(`bad value type ${type}`);
  }
}

/**
 * Applies what an earlier version's commit journal holds past its mark to `db` (not migrated yet),
 * then removes the file. Throws a `StoreError` when the records cannot be applied (the file stays).
 */
export function applyLegacyJournal(db: Database, file: string, report?: LegacyReport): void {
  const path = legacyJournalPath(file);
  const bytes = readIfThere(path);
  if (bytes === null) return;
  const { records, end } = readLegacyJournal(bytes);
  if (dataAfter(bytes, end)) report?.(TAIL, { file: path, at: end });
  const marked = hasTable(db, 'commit_journal');
  let applied = 0;
  try {
    db.transaction(() => {
      let last = marked ? ((db.prepare('SELECT seq FROM commit_journal WHERE id = 1').pluck().get() as number | undefined) ?? 0) : 0;
      const sqlById = new Map<number, string>();
      const statements = new Map<string, Statement>();
      for (const record of records) {
        for (const [id, sql] of record.defs) sqlById.set(id, sql);
        if (record.seq <= last) continue;
        for (const [id, kind, args] of record.writes) {
          const sql = sqlById.get(id);
          if (sql === undefined) throw new Error(`record ${record.seq} names statement ${id}, which the journal never defined`);
          let stmt = statements.get(sql);
          if (stmt === undefined) statements.set(sql, (stmt = db.prepare(sql)));
          if (kind === 0) stmt.run(...args);
          else stmt.all(...args);
        }
        last = record.seq;
        applied += 1;
      }
      if (marked) db.prepare('UPDATE commit_journal SET seq = ? WHERE id = 1').run(last);
    }).immediate();
  } catch (error) {
    // Another connection holding the write lock is no fault of the file.
    const busy = toStoreError(error, file);
    if (busy?.code === 'locked') throw busy;
    throw new StoreError(
      'corrupt',
      `the commit journal ${path} an earlier version left could not be applied to the database (${(error as Error).message}); move the file aside to start without the turns it holds`,
      { cause: error },
    );
  }
  rmSync(path, { force: true });
  report?.('applied the commit journal an earlier version left, and removed it', { file: path, records: records.length, applied });
}

// ---- the hook intake log ------------------------------------------------------------------------

/** One hook call an earlier version answered and had not handled: its vendor, when it came (ms), its payload. */
export interface LegacyHook {
  readonly vendor: string;
  readonly at: number;
  readonly payload: unknown;
}

/**
 * The log's whole records, in order, and where they end: a 16-byte head (u32 body length, u32
 * CRC-32 of the rest, f64 sequence) and the body; each sequence follows the one before (what an
 * older generation of the file left behind is not read).
 */
export function readLegacyIntake(bytes: Buffer): { records: { seq: number; body: Buffer }[]; end: number; torn: boolean } {
  const records: { seq: number; body: Buffer }[] = [];
  let at = 0;
  let torn = false;
  while (at + 16 <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    const whole = at + 16 + length <= bytes.length && crc32(bytes.subarray(at + 8, at + 16 + length)) === bytes.readUInt32LE(at + 4);
    const seq = whole ? bytes.readDoubleLE(at + 8) : NaN;
    if (!whole || !Number.isSafeInteger(seq) || seq < 1 || (records.length > 0 && seq !== records[records.length - 1].seq + 1)) {
      // A whole record out of sequence is an older generation's; anything else but zeros is torn.
      torn = !whole && dataAfter(bytes, at);
      break;
    }
    records.push({ seq, body: Buffer.from(bytes.subarray(at + 16, at + 16 + length)) });
    at += 16 + length;
  }
  return { records, end: at, torn };
}

/** A record's call: `<vendor>\n<time ms>\n<payload JSON>`, or null when it is not one. */
function decodeHook(body: Buffer): LegacyHook | null {
  const first = body.indexOf(10);
  const second = first < 0 ? -1 : body.indexOf(10, first + 1);
  if (second < 0) return null;
  const vendor = body.toString('latin1', 0, first);
  const at = Number(body.toString('latin1', first + 1, second));
  const payload = parseBoundedJson(body.toString('utf8', second + 1));
  return vendor === '' || !Number.isFinite(at) || !payload.ok ? null : { vendor, at, payload: payload.value };
}

/** The hook calls an earlier version's intake log holds past its mark, to be handled once. */
export class LegacyHooks implements TurnWriter {
  private marked = false;

  private constructor(
    private readonly db: Database,
    private readonly path: string,
    readonly hooks: readonly LegacyHook[],
    private readonly last: number,
  ) {}

  /** The log beside the database `file`, or null when there is none. */
  static open(db: Database, file: string, report?: LegacyReport): LegacyHooks | null {
    const path = legacyIntakePath(file);
    const bytes = readIfThere(path);
    if (bytes === null) return null;
    const { records, end, torn } = readLegacyIntake(bytes);
    if (torn) report?.(TAIL, { file: path, at: end });
    const mark = hasTable(db, 'intake_marks')
      ? ((db.prepare("SELECT seq FROM intake_marks WHERE name = 'hooks'").pluck().get() as number | undefined) ?? 0)
      : 0;
    const hooks: LegacyHook[] = [];
    for (const r of records) {
      if (r.seq <= mark) continue;
      const hook = decodeHook(r.body);
      if (hook === null) report?.('a hook intake record could not be read; it is skipped', { file: path, seq: r.seq });
      else hooks.push(hook);
    }
    const last = records.length > 0 ? records[records.length - 1].seq : 0;
    return new LegacyHooks(db, path, hooks, last);
  }

  /** The hooks were handled in this turn: their mark joins the turn's group commit. */
  handled(): void {
    turnCommitOf(this.db).schedule(this);
  }

  /** Inside the turn's transaction (TurnWriter). */
  write(): void {
    if (hasTable(this.db, 'intake_marks'))
      this.db
        .prepare("INSERT INTO intake_marks (name, seq) VALUES ('hooks', ?) ON CONFLICT (name) DO UPDATE SET seq = max(seq, excluded.seq)")
        .run(this.last);
  }

  /** After the COMMIT that holds the mark. */
  settle(): void {
    this.marked = true;
  }

  /** The mark could not be written: the file stays, and the next start handles what it holds past the mark. */
  recover(): void {}

  /** Once the mark is committed, everything in the log is in the database: the file and its mark go. False when it is not. */
  finish(): boolean {
    if (!this.marked) return false;
    rmSync(this.path, { force: true });
    dropLegacyMarks(this.db, this.path.slice(0, -'-hooks'.length));
    return true;
  }
}
