/**
 * Session runs: a copy of each session's history laid out for replay, beside the `events` table.
 *
 * Why. `events` is stored in admission order, which keeps a hook's insert an append; but with many
 * sessions writing at once a session's rows are spread one to a table page, so replaying a session
 * reads one page per row (about 300,000 rows/s here over 100 interleaved sessions, however the
 * replay is written). Keeping the table clustered by session instead costs every hook 14–24 % more
 * CPU (docs/ARCHITECTURE.md, 2026-12-01). A run is the other way round: consecutive rows of one
 * session (in its session order, migrations/0010-events.ts) copied, as they are admitted, into one
 * block of a segment file (`<database>-runs/<id>.runs`), written with one `pwritev` per
 * `RUN_ROWS` rows; its row in `event_runs` (migration 0150) joins the turn that admitted the run's
 * last row. A replay reads a block of rows per run instead of a page per row.
 *
 * The copy is never the record. A replay uses a run only when the session-order index still holds
 * exactly the rows the run copied (their count and two sums of their row numbers over the run's key
 * range, index only) and the block's checksum holds; otherwise it reads the table, as it does for
 * rows no run holds (a session's last rows not yet a run, rows admitted out of order, rows stored
 * before this existed, a block lost with a power cut). Nothing here needs a sync: a lost or torn
 * block is a block the replay does not use.
 *
 * Upkeep (a timer, off the hook path): runs whose rows left the table (retention) are deleted,
 * segment files no run points into are removed, and a segment whose live runs are under a quarter
 * of it is compacted into the current one.
 */
import { closeSync, constants, fdatasync, fstatSync, mkdirSync, openSync, readSync, readdirSync, unlinkSync, writevSync } from 'node:fs';
import { join } from 'node:path';
import { crc32 } from 'node:zlib';
import type { Database, Statement } from 'better-sqlite3';
import { deferredCommitOf } from './deferred-commit';

/** An ordering key with its row number: (ord_epoch, ord_seq, ord_tie, n). */
export type RunKey = readonly [number, number, number, number];
/** A replay row in raw mode: json, type, seq code, epoch code (event-replay.ts, POSITION_CODES). */
export type RunRow = [string, string, number, number];

/** What the runs hold at a session's next row `at` (`SessionRuns.read`). */
export type RunLookup =
  /** A run holds `at`: its rows from `at` on, and its last key. */
  | { readonly rows: RunRow[]; readonly last: RunKey; readonly before?: undefined }
  /** Read the table from `at` up to `before` (exclusive; null: to the end). */
  | { readonly rows?: undefined; readonly last?: undefined; readonly before: RunKey | null };

/** Options of `SessionRuns`. */
export interface SessionRunsOptions {
  /** The directory of the segment files (created 0700). */
  readonly dir: string;
  /** Time between upkeep passes (ms, default 5,000); 0 disables the timer (tests call `upkeep`). */
  readonly upkeepMs?: number;
  /** A segment file could not be written or removed (the run is skipped; replay reads the table). */
  readonly onError?: (error: unknown) => void;
}

/** Rows per run at most. */
export const RUN_ROWS = 64;
/** Bytes of type and JSON text a run holds at most; a row larger than this is left to the table. */
export const RUN_BYTES = 32 * 1024;
/** A segment file takes no more runs past this size. */
export const SEGMENT_BYTES = 64 * 1024 * 1024;
/** Sessions with rows staged at most; one more flushes the earliest staged as a shorter run. */
export const MAX_STAGED = 256;
/**
 * Bytes written to segment files between two background `fdatasync`s (libuv's thread pool; one at
 * a time). Not for durability (a lost block is read from the table): unsynced, the kernel wrote
 * them back all at once when they expired (30 s), and the disk's queue behind that burst held the
 * daemon's own WAL writes at COMMIT for 60–94 ms (a page under writeback is waited for).
 */
export const SYNC_BYTES = 4 * 1024 * 1024;
/** Runs an upkeep pass moves out of a mostly dead segment at most. */
const COMPACT_RUNS = 256;
/** Sessions an upkeep pass checks for runs the table no longer holds. */
const CHECK_SESSIONS = 64;

const MAGIC = 0x314e5552; // 'RUN1'
const HEADER = 32;
/** Per row: epoch code, seq code, tie, n, and (type bytes × 2³² + JSON bytes), as float64. */
const META = 5;
const PRIME = 1_000_003;
const MIX = 999_983;
/** A row number's second fingerprint (also computed in SQL: `verifyStmt`). */
const mix = (n: number): number => ((n % PRIME) * MIX) % PRIME;
const END: RunKey = [Number.MAX_SAFE_INTEGER, 0, 0, 0];

/**
 * A run is written only for a session whose rows are spread over the table: when the rows a run
 * would copy span under `DENSE_SPAN` table rows each, the session's own rows share its pages (a
 * few sessions at once: 4 interleaved sessions read 349,000–377,000 rows/s from the table, one
 * 759,000–875,000), so the run is dropped and the session's next `RUN_ROWS` rows are not staged
 * (only counted, to tell whether they are still as dense).
 */
export const DENSE_SPAN = 4;

/** One session's rows waiting to become a run. */
class Staged {
  readonly meta = new Float64Array(RUN_ROWS * META);
  readonly data = Buffer.allocUnsafeSlow(RUN_BYTES);
  /** Rows left to only count (the session's rows are dense in the table), and the window's first row number. */
  skip = 0;
  skipFirstN = 0;
  rows = 0;
  used = 0;
  sumN = 0;
  fp = 0;
  first: RunKey = END;
  last: RunKey = END;

  clear(): void {
    this.skip = 0;
    this.rows = 0;
    this.used = 0;
    this.sumN = 0;
    this.fp = 0;
  }
}

/** The row of `event_runs` a read needs, in raw order. */
type IndexRow = [
  id: number,
  fEpoch: number,
  fSeq: number,
  fTie: number,
  fN: number,
  lEpoch: number,
  lSeq: number,
  lTie: number,
  lN: number,
  rows: number,
  sumN: number,
  fp: number,
  segment: number,
  at: number,
  bytes: number,
];

const keyBelow = (a: RunKey, b: RunKey): boolean =>
  a[0] !== b[0] ? a[0] < b[0] : a[1] !== b[1] ? a[1] < b[1] : a[2] !== b[2] ? a[2] < b[2] : a[3] < b[3];

/** The runs of one store: staged as rows are admitted, read by replay, kept by a timer. */
export class SessionRuns {
  private readonly staged = new Map<string, Staged>();
  private readonly pool: Staged[] = [];
  private readonly insertStmt: Statement;
  private readonly runAtStmt: Statement;
  private readonly verifyStmt: Statement;
  private readonly earliestStmt: Statement;
  private readonly sessionsStmt: Statement;
  private readonly dropSessionStmt: Statement;
  private readonly dropBelowStmt: Statement;
  private readonly firstFromStmt: Statement;
  private readonly dropIdStmt: Statement;
  private readonly segmentsStmt: Statement;
  private readonly liveStmt: Statement;
  private readonly dropSegmentStmt: Statement;
  private readonly movableStmt: Statement;
  private readonly moveStmt: Statement;
  /** Open segment files by id (read, and the current one also written). */
  private readonly fds = new Map<number, number>();
  /** Segment files found or made, by id, with their size as far as this process knows. */
  private readonly sizes = new Map<number, number>();
  private current = -1;
  private end = 0;
  private unsynced = 0;
  private syncing = false;
  private readonly header = Buffer.alloc(HEADER);
  private scratch = Buffer.from(new ArrayBuffer(RUN_BYTES + HEADER + RUN_ROWS * META * 8));
  private checkFrom = '';
  private readonly timer: NodeJS.Timeout | null;
  private closed = false;
  /** Runs written and runs read (tests, benches). */
  readonly counts = { written: 0, dense: 0, read: 0, refused: 0, compacted: 0, removedSegments: 0 };

  constructor(
    private readonly db: Database,
    private readonly options: SessionRunsOptions,
  ) {
    mkdirSync(options.dir, { recursive: true, mode: 0o700 });
    for (const name of readdirSync(options.dir)) {
      const m = /^(\d+)\.runs$/.exec(name);
      if (m !== null) this.sizes.set(Number(m[1]), Number.MAX_SAFE_INTEGER);
    }
    this.insertStmt = db.prepare(
      `INSERT INTO event_runs (session, f_epoch, f_seq, f_tie, f_n, l_epoch, l_seq, l_tie, l_n, rows, sum_n, fp, segment, at, bytes)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.runAtStmt = db
      .prepare(
        `SELECT id, f_epoch, f_seq, f_tie, f_n, l_epoch, l_seq, l_tie, l_n, rows, sum_n, fp, segment, at, bytes
         FROM event_runs WHERE session = ? AND (l_epoch, l_seq, l_tie, l_n) >= (?, ?, ?, ?)
         ORDER BY l_epoch, l_seq, l_tie, l_n LIMIT 1`,
      )
      .raw(true);
    this.verifyStmt = db
      .prepare(
        `SELECT count(*), sum(n), sum((n % ${PRIME}) * ${MIX} % ${PRIME}) FROM events
         WHERE session = ? AND (ord_epoch, ord_seq, ord_tie, n) >= (?, ?, ?, ?)
           AND (ord_epoch, ord_seq, ord_tie, n) <= (?, ?, ?, ?)`,
      )
      .raw(true);
    this.earliestStmt = db
      .prepare(
        `SELECT ord_epoch, ord_seq, ord_tie, n FROM events WHERE session = ?
         ORDER BY ord_epoch, ord_seq, ord_tie, n LIMIT 1`,
      )
      .raw(true);
    this.sessionsStmt = db
      .prepare('SELECT DISTINCT session FROM event_runs WHERE session > ? ORDER BY session LIMIT ?')
      .pluck();
    this.dropSessionStmt = db.prepare('DELETE FROM event_runs WHERE session = ?');
    this.dropBelowStmt = db.prepare(
      'DELETE FROM event_runs WHERE session = ? AND (l_epoch, l_seq, l_tie, l_n) < (?, ?, ?, ?)',
    );
    this.firstFromStmt = db
      .prepare(
        `SELECT id, f_epoch, f_seq, f_tie, f_n FROM event_runs WHERE session = ?
         ORDER BY l_epoch, l_seq, l_tie, l_n LIMIT 1`,
      )
      .raw(true);
    this.dropIdStmt = db.prepare('DELETE FROM event_runs WHERE id = ?');
    this.segmentsStmt = db.prepare('SELECT DISTINCT segment FROM event_runs').pluck();
    this.liveStmt = db.prepare('SELECT count(*) AS runs, COALESCE(sum(bytes), 0) AS bytes FROM event_runs WHERE segment = ?');
    this.dropSegmentStmt = db.prepare('DELETE FROM event_runs WHERE segment = ?');
    this.movableStmt = db
      .prepare(`SELECT id, at, bytes FROM event_runs WHERE segment = ? LIMIT ${COMPACT_RUNS}`)
      .raw(true);
    this.moveStmt = db.prepare('UPDATE event_runs SET segment = ?, at = ? WHERE id = ?');
    const every = options.upkeepMs ?? 5_000;
    this.timer = every > 0 ? setInterval(() => this.upkeep(), every) : null;
    this.timer?.unref();
  }

  /**
   * A row the store just inserted in the session's order (its key above every key the session
   * held): staged, and written as a run once `RUN_ROWS` are (inside the admitting turn).
   */
  stage(
    session: string,
    key: RunKey,
    seqCode: number,
    epochCode: number,
    type: string,
    json: string,
  ): void {
    let s = this.staged.get(session);
    if (s === undefined) {
      if (this.staged.size >= MAX_STAGED) this.evict();
      s = this.pool.pop() ?? new Staged();
      this.staged.set(session, s);
    } else if (s.rows > 0 && !keyBelow(s.last, key)) {
      s.clear();
    }
    if (s.skip > 0) {
      if (s.skip === RUN_ROWS) s.skipFirstN = key[3];
      // Still dense at the window's end: count the next window too.
      if (--s.skip === 0 && key[3] - s.skipFirstN + 1 < RUN_ROWS * DENSE_SPAN) s.skip = RUN_ROWS;
      return;
    }
    // UTF-8 takes at most three bytes per UTF-16 unit; the exact length only when that bound does not fit.
    const bound = (type.length + json.length) * 3;
    if (s.used + bound > RUN_BYTES) {
      if (s.rows > 0) this.flush(session, s);
      if (bound > RUN_BYTES && Buffer.byteLength(type) + Buffer.byteLength(json) > RUN_BYTES) return;
    }
    const typeBytes = s.data.write(type, s.used);
    const jsonBytes = s.data.write(json, s.used + typeBytes);
    s.used += typeBytes + jsonBytes;
    const m = s.meta;
    const i = s.rows * META;
    m[i] = epochCode;
    m[i + 1] = seqCode;
    m[i + 2] = key[2];
    m[i + 3] = key[3];
    m[i + 4] = typeBytes * 0x1_0000_0000 + jsonBytes;
    if (s.rows === 0) s.first = key;
    s.last = key;
    s.rows++;
    s.sumN += key[3];
    s.fp += mix(key[3]);
    if (s.rows === RUN_ROWS) this.flush(session, s);
  }

  /** The session's staged rows are not the next rows of its order any more (an admit below them). */
  drop(session: string): void {
    const s = this.staged.get(session);
    if (s === undefined) return;
    this.staged.delete(session);
    s.clear();
    this.pool.push(s);
  }

  /** Retention deleted the session's rows through `through`: staged rows among them go. */
  trimmed(session: string, through: RunKey): void {
    const s = this.staged.get(session);
    if (s !== undefined && s.rows > 0 && !keyBelow(through, s.first)) this.drop(session);
  }

  /** Forgets every staged row (the turn that staged them failed). */
  reset(): void {
    for (const session of [...this.staged.keys()]) this.drop(session);
  }

  /**
   * What the runs hold at `at`, the session's next row in the table: the rows of the run holding
   * it (from `at` on) when that run is still exactly what the table holds, else how far to read
   * the table before asking again.
   */
  read(session: string, at: RunKey): RunLookup {
    const r = this.runAtStmt.get(session, ...at) as IndexRow | undefined;
    if (r === undefined) return { before: null };
    const first: RunKey = [r[1], r[2], r[3], r[4]];
    const last: RunKey = [r[5], r[6], r[7], r[8]];
    if (keyBelow(at, first)) return { before: first };
    const rows = this.verified(session, r, first, last, at);
    if (rows === null) {
      this.counts.refused++;
      return { before: [last[0], last[1], last[2], last[3] + 1] };
    }
    this.counts.read++;
    return { rows, last };
  }

  /** The run's rows from `at` on, or null when the table or the block disagree with it. */
  private verified(session: string, r: IndexRow, first: RunKey, last: RunKey, at: RunKey): RunRow[] | null {
    const [count, sumN, fp] = this.verifyStmt.get(session, ...first, ...last) as [number, number | null, number | null];
    const [, , , , , , , , , rows, runSum, runFp, segment, offset, bytes] = r;
    if (count !== rows || sumN !== runSum || fp !== runFp) return null;
    const fd = this.fdOf(segment);
    if (fd === undefined) return null;
    if (this.scratch.length < bytes) this.scratch = Buffer.from(new ArrayBuffer(bytes));
    const buf = this.scratch;
    try {
      if (readSync(fd, buf, 0, bytes, offset) !== bytes) return null;
    } catch {
      return null;
    }
    const metaBytes = rows * META * 8;
    const used = buf.readUInt32LE(8);
    if (
      buf.readUInt32LE(0) !== MAGIC ||
      buf.readUInt32LE(4) !== rows ||
      HEADER + metaBytes + used !== bytes ||
      buf.readDoubleLE(16) !== runSum ||
      buf.readDoubleLE(24) !== runFp ||
      crc32(buf.subarray(HEADER + metaBytes, bytes), crc32(buf.subarray(HEADER, HEADER + metaBytes))) !==
        buf.readUInt32LE(12)
    )
      return null;
    const meta = new Float64Array(buf.buffer, buf.byteOffset + HEADER, rows * META);
    const out: RunRow[] = [];
    let p = HEADER + metaBytes;
    for (let i = 0; i < rows; i++) {
      const j = i * META;
      const epochCode = meta[j];
      const seqCode = meta[j + 1];
      const lengths = meta[j + 4];
      const typeBytes = Math.floor(lengths / 0x1_0000_0000);
      const jsonBytes = lengths - typeBytes * 0x1_0000_0000;
      const start = p;
      p += typeBytes + jsonBytes;
      if (out.length === 0) {
        const key: RunKey = [
          epochCode >= 0 ? epochCode : -1 - epochCode,
          seqCode >= 0 ? seqCode : -1 - seqCode,
          meta[j + 2],
          meta[j + 3],
        ];
        if (keyBelow(key, at)) continue;
      }
      out.push([
        buf.toString('utf8', start + typeBytes, p),
        buf.toString('utf8', start, start + typeBytes),
        seqCode,
        epochCode,
      ]);
    }
    return out;
  }

  /** Writes the staged rows as a run (inside the admitting turn); a file error skips the run. */
  private flush(session: string, s: Staged): void {
    const rows = s.rows;
    if (rows === RUN_ROWS && s.last[3] - s.first[3] + 1 < RUN_ROWS * DENSE_SPAN) {
      // The session's rows are dense in the table: no run (see DENSE_SPAN).
      s.clear();
      s.skip = RUN_ROWS;
      this.counts.dense++;
      return;
    }
    const metaBytes = new Uint8Array(s.meta.buffer, 0, rows * META * 8);
    const data = s.data.subarray(0, s.used);
    const bytes = HEADER + metaBytes.length + data.length;
    const first = s.first;
    const last = s.last;
    const sumN = s.sumN;
    const fp = s.fp;
    s.clear();
    let segment: number;
    let at: number;
    try {
      if (this.current < 0 || this.end + bytes > SEGMENT_BYTES) this.rotate();
      segment = this.current;
      at = this.end;
      const h = this.header;
      h.writeUInt32LE(MAGIC, 0);
      h.writeUInt32LE(rows, 4);
      h.writeUInt32LE(data.length, 8);
      h.writeUInt32LE(crc32(data, crc32(metaBytes)), 12);
      h.writeDoubleLE(sumN, 16);
      h.writeDoubleLE(fp, 24);
      const written = writevSync(this.fds.get(segment)!, [h, metaBytes, data], at);
      this.end += written;
      this.sizes.set(segment, this.end);
      this.unsynced += written;
      if (this.unsynced >= SYNC_BYTES) this.syncSoon();
      if (written !== bytes) return;
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    this.insertStmt.run(session, ...first, ...last, rows, sumN, fp, segment, at, bytes);
    this.counts.written++;
  }

  /** Starts a background `fdatasync` of the current segment (see SYNC_BYTES), unless one runs. */
  private syncSoon(): void {
    const fd = this.fds.get(this.current);
    if (this.syncing || fd === undefined) return;
    this.syncing = true;
    this.unsynced = 0;
    fdatasync(fd, () => {
      // An error (the file closed meanwhile) loses nothing: the runs are a copy.
      this.syncing = false;
    });
  }

  /** Flushes the session staged first (a shorter run) to make room for another. */
  private evict(): void {
    const [session, s] = this.staged.entries().next().value as [string, Staged];
    if (s.rows > 0) this.flush(session, s);
    this.drop(session);
  }

  /** Starts a new segment file (a fresh id, created exclusively). */
  private rotate(): void {
    let id = Math.max(0, this.current, ...this.sizes.keys()) + 1;
    for (;;) {
      try {
        const fd = openSync(
          join(this.options.dir, `${id}.runs`),
          constants.O_RDWR | constants.O_CREAT | constants.O_EXCL,
          0o600,
        );
        this.fds.set(id, fd);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        id++;
      }
    }
    this.current = id;
    this.end = 0;
    this.sizes.set(id, 0);
  }

  private fdOf(segment: number): number | undefined {
    let fd = this.fds.get(segment);
    if (fd !== undefined) return fd;
    try {
      fd = openSync(join(this.options.dir, `${segment}.runs`), 'r');
    } catch {
      return undefined;
    }
    this.fds.set(segment, fd);
    return fd;
  }

  /**
   * One upkeep pass: runs of a batch of sessions that the table no longer holds whole are deleted
   * (trimmed, swept, or the session gone), runs in missing files too; files no run points into are
   * removed; and a segment whose live runs are under a quarter of it moves them to the current one.
   */
  upkeep(): void {
    if (this.closed || !this.db.open) return;
    const unlink: number[] = [];
    const pass = (): void => {
      const sessions = this.sessionsStmt.all(this.checkFrom, CHECK_SESSIONS) as string[];
      this.checkFrom = sessions.length < CHECK_SESSIONS ? '' : sessions[sessions.length - 1];
      for (const session of sessions) {
        const earliest = this.earliestStmt.get(session) as RunKey | undefined;
        if (earliest === undefined) {
          this.dropSessionStmt.run(session);
          continue;
        }
        this.dropBelowStmt.run(session, ...earliest);
        const first = this.firstFromStmt.get(session) as [number, number, number, number, number] | undefined;
        if (first !== undefined && keyBelow([first[1], first[2], first[3], first[4]], earliest))
          this.dropIdStmt.run(first[0]);
      }
      for (const segment of this.segmentsStmt.all() as number[])
        if (!this.sizes.has(segment)) this.dropSegmentStmt.run(segment);
      for (const [segment, size] of this.sizes) {
        if (segment === this.current) continue;
        const live = this.liveStmt.get(segment) as { runs: number; bytes: number };
        if (live.runs === 0) unlink.push(segment);
        else if (live.bytes * 4 < size && size !== Number.MAX_SAFE_INTEGER) this.compact(segment);
        else if (size === Number.MAX_SAFE_INTEGER) this.sizes.set(segment, this.sizeOf(segment) ?? size);
      }
    };
    try {
      const deferred = deferredCommitOf(this.db);
      if (deferred !== undefined) deferred.derived(pass);
      else this.db.transaction(pass)();
    } catch (error) {
      this.options.onError?.(error);
      return;
    }
    for (const segment of unlink) {
      const fd = this.fds.get(segment);
      if (fd !== undefined) closeSync(fd);
      this.fds.delete(segment);
      this.sizes.delete(segment);
      try {
        unlinkSync(join(this.options.dir, `${segment}.runs`));
        this.counts.removedSegments++;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.options.onError?.(error);
      }
    }
  }

  /** Moves a batch of a segment's live runs to the end of the current segment. */
  private compact(segment: number): void {
    const fd = this.fdOf(segment);
    if (fd === undefined) return;
    for (const [id, at, bytes] of this.movableStmt.all(segment) as [number, number, number][]) {
      if (this.scratch.length < bytes) this.scratch = Buffer.from(new ArrayBuffer(bytes));
      if (readSync(fd, this.scratch, 0, bytes, at) !== bytes) continue;
      if (this.current < 0 || this.end + bytes > SEGMENT_BYTES) this.rotate();
      const to = this.end;
      const written = writevSync(this.fds.get(this.current)!, [this.scratch.subarray(0, bytes)], to);
      this.end += written;
      this.sizes.set(this.current, this.end);
      if (written !== bytes) continue;
      this.moveStmt.run(this.current, to, id);
      this.counts.compacted++;
    }
  }

  private sizeOf(segment: number): number | undefined {
    const fd = this.fdOf(segment);
    if (fd === undefined) return undefined;
    try {
      return fstatSync(fd).size;
    } catch {
      return undefined;
    }
  }

  /** Stops the timer and closes the segment files (staged rows stay in the table only). */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    for (const fd of this.fds.values()) {
      try {
        closeSync(fd);
      } catch {
        // Closed already.
      }
    }
    this.fds.clear();
  }
}
