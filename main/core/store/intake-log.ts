/**
 * An intake log: inputs made durable as they came, before anything is derived from them. A caller
 * that must acknowledge an input at once, and can derive its rows later, appends the input's
 * bytes here (a copy into the file's shared memory map, or one positioned write where there is no
 * map: either survives a kill -9, as the commit journal does) and replies;
 * its consumer processes the records later in a batch, and marks the last one it processed with
 * `consumed`: the mark (table `intake_marks`, migration 0140) is written in the same group commit
 * as the rows derived from the records (turn-commit.ts), so they are durable together. At open,
 * the records past the mark are handed back to be processed again: each acknowledged input is
 * processed once, in order, across a crash.
 *
 * A record is a 16-byte head (u32 length of the body, u32 CRC-32 of the rest, f64 sequence) and
 * its body. The file is written from its start again once every record in it is consumed and the
 * mark is durable; a reader takes records while each sequence follows the one before, so what an
 * older generation left behind is never read, and a torn last record (a write cut by a power
 * loss, never acknowledged) ends the log.
 */
import { closeSync, constants, openSync, readFileSync, readSync } from 'node:fs';
import { crc32 } from 'node:zlib';
import type { Database, Statement } from 'better-sqlite3';
import { deferredCommitOf } from './deferred-commit';
import { mapFileStart, putAt } from './file-map';
import { turnCommitOf, type TurnWriter } from './turn-commit';

const HEAD = 16;
/** Past this position, a durable mark moves the records not consumed yet to the file's start. */
const REWIND_AT = 1024 * 1024;
/**
 * The start of the file that is written through a shared memory map (file-map.ts) when one can be
 * had: a rewind keeps a log under steady load inside it, so a record costs a copy, not a `write`.
 * Records past it, and every record where there is no map, are written with `pwrite`.
 */
export const INTAKE_MAP_BYTES = 4 * 1024 * 1024;
/** Largest record body taken (a larger input is handled without the log). */
export const MAX_INTAKE_RECORD = 64 * 1024 * 1024;

/** A record read back at open: its sequence and body. */
export interface IntakeRecord {
  readonly seq: number;
  readonly body: Buffer;
}

/** A record as read: also where it starts in the file. */
interface ReadRecord extends IntakeRecord {
  readonly at: number;
}

/** The records of `bytes` that follow one another from the start (the log's valid prefix), and where they end. */
export function readIntake(bytes: Buffer): { records: ReadRecord[]; end: number } {
  const records: ReadRecord[] = [];
  let at = 0;
  let last: number | undefined;
  while (at + HEAD <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    if (length > MAX_INTAKE_RECORD || at + HEAD + length > bytes.length) break;
    if (crc32(bytes.subarray(at + 8, at + HEAD + length)) !== bytes.readUInt32LE(at + 4)) break;
    const seq = bytes.readDoubleLE(at + 8);
    if (!Number.isSafeInteger(seq) || seq < 1 || (last !== undefined && seq !== last + 1)) break;
    records.push({ seq, body: Buffer.from(bytes.subarray(at + HEAD, at + HEAD + length)), at });
    last = seq;
    at += HEAD + length;
  }
  return { records, end: at };
}

/** One intake log and its mark. */
export class IntakeLog implements TurnWriter {
  private fd: number;
  /** Where the next record goes. */
  private at: number;
  /** The last sequence written. */
  private seq: number;
  /** The last sequence consumed (its mark queued or written). */
  private consumedSeq: number;
  /** The sequence the mark being written holds. */
  private marking = 0;
  /**
   * Where each record past the durable mark starts, in order (what a rewind writes again at the
   * start): the records of sequences `keptFirst`, `keptFirst + 1`, … They lie one after another up
   * to `at`, so a rewind reads them back from the file rather than keeping their bytes in memory.
   */
  private keptAt: number[];
  private keptFirst: number;
  private readonly markStmt: Statement;
  /** The file's first `INTAKE_MAP_BYTES`, mapped shared, or undefined (every record is written). */
  private readonly map: Buffer | undefined;

  private constructor(
    private readonly db: Database,
    private readonly name: string,
    path: string,
    mark: number,
    last: number,
    end: number,
    unconsumed: readonly ReadRecord[],
    mapped: boolean,
  ) {
    this.fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
    this.map = mapped ? mapFileStart(this.fd, INTAKE_MAP_BYTES) : undefined;
    this.seq = last;
    this.consumedSeq = mark;
    this.marking = mark;
    this.keptAt = unconsumed.map((r) => r.at);
    this.keptFirst = unconsumed.length > 0 ? unconsumed[0].seq : last + 1;
    // Nothing left to consume: the next generation starts at the file's beginning.
    this.at = last <= mark ? 0 : end;
    this.markStmt = db.prepare(
      'INSERT INTO intake_marks (name, seq) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET seq = max(seq, excluded.seq)',
    );
  }

  /**
   * Opens the log `name` at `path` (created 0600 when absent) over `db` (migrated): the log, and
   * the records past its mark, to be processed again before anything new. `map: false` writes every
   * record with `pwrite` (the default maps the file's start where it can: file-map.ts).
   */
  static open(
    db: Database,
    name: string,
    path: string,
    options: { readonly map?: boolean } = {},
  ): { log: IntakeLog; unconsumed: IntakeRecord[] } {
    let bytes: Buffer;
    try {
      bytes = readFileSync(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      bytes = Buffer.alloc(0);
    }
    const row = db.prepare('SELECT seq FROM intake_marks WHERE name = ?').get(name) as { seq: number } | undefined;
    const mark = row?.seq ?? 0;
    const { records, end } = readIntake(bytes);
    const last = Math.max(mark, records.length > 0 ? records[records.length - 1].seq : 0);
    const unconsumed = records.filter((r) => r.seq > mark);
    return { log: new IntakeLog(db, name, path, mark, last, end, unconsumed, options.map !== false), unconsumed };
  }

  /** Appends `parts` as one record; returns its sequence once it is written (throws when it cannot be). */
  append(parts: readonly Buffer[]): number {
    if (this.fd < 0) throw new Error(`intake log ${this.name} is closed`);
    let length = 0;
    for (const p of parts) length += p.length;
    if (length > MAX_INTAKE_RECORD) throw new Error(`intake log ${this.name}: a record of ${length} bytes is over the limit`);
    const seq = this.seq + 1;
    const total = HEAD + length;
    const start = this.at;
    // Built in place in the map where it fits (no buffer, no system call), else in a buffer of its
    // own that is then written. The CRC goes in last, so a record cut short by a kill never reads
    // as whole (nor does an older one's head left in its place: its sequence is below the last one).
    const inMap = this.map !== undefined && start + total <= this.map.length;
    const target = inMap ? this.map! : Buffer.allocUnsafe(total);
    const base = inMap ? start : 0;
    let at = base + HEAD;
    for (const p of parts) at += p.copy(target, at);
    target.writeUInt32LE(length, base);
    target.writeDoubleLE(seq, base + 8);
    target.writeUInt32LE(crc32(target.subarray(base + 8, base + total)), base + 4);
    if (!inMap) this.writeAt(target, start);
    this.at = start + total;
    this.seq = seq;
    if (this.keptAt.length === 0) this.keptFirst = seq;
    this.keptAt.push(start);
    return seq;
  }

  /** The records up to `seq` are processed: their mark joins this turn's group commit. */
  consumed(seq: number): void {
    if (seq <= this.consumedSeq) return;
    this.consumedSeq = seq;
    turnCommitOf(this.db).schedule(this);
  }

  /** The mark's write, inside the turn's transaction (TurnWriter). */
  write(): void {
    this.marking = this.consumedSeq;
    const deferred = deferredCommitOf(this.db);
    // Nothing reads the mark before a restart: on a deferred connection it is written once per COMMIT.
    if (deferred?.inTurn === true) deferred.later(`intake\u0000${this.name}`, this.markStmt, [this.name, this.marking]);
    else this.markStmt.run(this.name, this.marking);
  }

  /**
   * The mark is durable: when it covers every record written, the next one starts the file over;
   * past `REWIND_AT`, the few records it does not cover yet are written again at the start (same
   * sequences, in order), so a log under steady load stays small too.
   */
  settle(): void {
    const covered = Math.min(this.keptAt.length, Math.max(0, this.marking - this.keptFirst + 1));
    if (covered > 0) {
      this.keptAt = this.keptAt.slice(covered);
      this.keptFirst += covered;
    }
    if (this.keptAt.length === 0) {
      this.at = 0;
      return;
    }
    if (this.at < REWIND_AT) return;
    const from = this.keptAt[0];
    const length = this.at - from;
    // Only when the records fit before where they are now: a rewind never overwrites them.
    if (length > from) return;
    try {
      // Read back through the page cache (a map and the file show the same bytes), written at 0.
      const bytes = Buffer.allocUnsafe(length);
      if (readSync(this.fd, bytes, 0, length, from) !== length) return;
      this.writeAt(bytes, 0);
      this.keptAt = this.keptAt.map((at) => at - from);
      this.at = length;
    } catch {
      // The records are still where they were: the log keeps growing until the next rewind.
    }
  }

  /** True when the file's start is mapped (records there are copied, not written). */
  get mapped(): boolean {
    return this.map !== undefined;
  }

  /** Puts `bytes` at `position`, in full, or throws: copied into the map where they fit, else written. */
  private writeAt(bytes: Buffer, position: number): void {
    putAt(this.fd, this.map, bytes, position, `intake log ${this.name}`);
  }

  /** The mark could not be written: it is written again with the next one (the records stay past it until then). */
  recover(): void {
    this.consumedSeq = Math.min(this.consumedSeq, this.marking - 1);
  }

  close(): void {
    if (this.fd < 0) return;
    try {
      closeSync(this.fd);
    } catch {
      // Closed already.
    }
    this.fd = -1;
  }
}
