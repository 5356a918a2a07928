/**
 * Reads the transcript files hook payloads point to, incrementally and off the hook's path: a
 * hook call only names the file (`observe`), and the read runs afterwards, one at a time per
 * session. Each read starts at the offset after the last complete line: a partial last line is
 * read again next time, a line longer than the bound is skipped whole, a file that shrank or was
 * replaced (another inode) is read again from its start, and a deleted file is forgotten. Only
 * files inside the vendor's own transcript directories are read (resolved through symlinks):
 * any other path is refused and audited once. Facts go to `deliver`; the offset moves only once
 * they are delivered (committed), so a failed delivery is read again.
 */
import { constants } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, resolve, sep } from 'node:path';
import type { VendorId } from '../../../common/vendors';
import type { Logger } from '../logger';
import type { ParserState, TranscriptFact, TranscriptFormat } from './facts';
import type { PositionStore, TailPosition } from '../store/transcript-positions';

export type { PositionStore, TailPosition };

/** Bounds of the tailer; every one keeps a pathological file from costing more than it. */
export interface TailerLimits {
  /** Bytes read from one file in one pass (more waits for the next hook). Default 4 MiB. */
  readonly maxReadBytes: number;
  /** A line longer than this is skipped whole. Default 1 MiB. */
  readonly maxLineBytes: number;
  /** A file first seen larger than this is read from its last `firstWindowBytes` only. Default 4 MiB. */
  readonly firstWindowBytes: number;
  /** Sessions whose position is kept; the least recently read go first. Default 1,000. */
  readonly maxFiles: number;
  /** Refused paths remembered (each audited once per vendor). Default 1,000. */
  readonly maxRefused: number;
  /**
   * A session's file is read once more this long after a hook's read (ms; default 1,000): an agent
   * may write its last lines (the reply after its final hook) when no further hook comes.
   */
  readonly settleMs: number;
}

export const DEFAULT_TAILER_LIMITS: TailerLimits = {
  maxReadBytes: 4 * 1024 * 1024,
  maxLineBytes: 1024 * 1024,
  firstWindowBytes: 4 * 1024 * 1024,
  maxFiles: 1_000,
  maxRefused: 1_000,
  settleMs: 1_000,
};

/** What the tailer is built from. */
export interface TailerDeps {
  /** The user's home directory (the vendors' transcript directories are under it). */
  readonly home: string;
  /** The vendors' config-dir variables as the host resolved them (never read from the environment here). */
  readonly vars?: Readonly<Record<string, string | undefined>>;
  /** The vendor's transcript format, or undefined for a vendor without one. */
  readonly format: (vendor: VendorId) => TranscriptFormat | undefined;
  /** False turns reading off (the `features.transcripts` setting). */
  readonly enabled: () => boolean;
  /**
   * Emits the facts as events of the session, in `run` (the run the hook that asked for the read
   * saw open, or null); resolves once they are committed.
   */
  readonly deliver: (vendor: VendorId, session: string, facts: readonly TranscriptFact[], run: string | null) => Promise<void>;
  /** Records a refused path (the audit log). */
  readonly refused: (vendor: VendorId, session: string, path: string, reason: string) => void;
  readonly logger: Logger;
  readonly positions?: PositionStore;
  readonly limits?: Partial<TailerLimits>;
}

interface FileState {
  path: string;
  ino: number;
  offset: number;
  /** The line at `offset` is the rest of one too long to keep: skip to its end. */
  skipping: boolean;
  parser: ParserState;
}

interface Lane {
  running: Promise<void> | null;
  again: boolean;
  path: string;
  run: string | null;
}

const NEWLINE = 0x0a;
const MAX_PATH_CHARS = 4096;

/** True when the byte before `offset` is a line end. */
async function endsLine(handle: FileHandle, offset: number): Promise<boolean> {
  const byte = Buffer.alloc(1);
  const { bytesRead } = await handle.read(byte, 0, 1, offset - 1);
  return bytesRead === 1 && byte[0] === NEWLINE;
}

/** Memory-only positions (the default). */
export function memoryPositions(): PositionStore {
  const map = new Map<string, TailPosition>();
  return {
    get: (vendor, session) => map.get(`${vendor}\u0000${session}`),
    set: (vendor, session, p) => void map.set(`${vendor}\u0000${session}`, p),
  };
}

/** The tailer of every vendor's transcripts. */
export class TranscriptTailer {
  private readonly files = new Map<string, FileState>();
  private readonly lanes = new Map<string, Lane>();
  private readonly refusedPaths = new Set<string>();
  /** The settle read asked for per session (see `TailerLimits.settleMs`). */
  private readonly settles = new Map<string, NodeJS.Timeout>();
  private readonly limits: TailerLimits;
  private readonly positions: PositionStore;
  private closed = false;

  constructor(private readonly deps: TailerDeps) {
    this.limits = { ...DEFAULT_TAILER_LIMITS, ...deps.limits };
    this.positions = deps.positions ?? memoryPositions();
  }

  /**
   * A hook call of `session` named `path` as its transcript: the file is read after this returns
   * (never while the hook waits). Anything but a path inside the vendor's directories is refused.
   */
  observe(vendor: VendorId, session: string, path: unknown, run: string | null = null, settling = false): void {
    if (this.closed || path === undefined || path === null || !this.deps.enabled()) return;
    const format = this.deps.format(vendor);
    if (format === undefined) return;
    const key = `${vendor}\u0000${session}`;
    const lexical = this.lexicalCheck(format, path);
    if (typeof lexical === 'string') {
      this.refuse(vendor, session, typeof path === 'string' ? path.slice(0, MAX_PATH_CHARS) : `(${typeof path})`, lexical);
      return;
    }
    let lane = this.lanes.get(key);
    if (lane === undefined) {
      lane = { running: null, again: false, path: lexical.path, run };
      this.lanes.set(key, lane);
    }
    lane.path = lexical.path;
    lane.run = run;
    if (lane.running !== null) {
      lane.again = true;
      return;
    }
    const current = lane;
    const read = async (): Promise<void> => {
      do {
        current.again = false;
        await this.pass(vendor, session, format, current.path, current.run);
      } while (current.again && !this.closed);
    };
    current.running = read()
      .catch((error: unknown) => this.deps.logger.error('transcript read failed', { vendor, session, error: String(error) }))
      .finally(() => {
        current.running = null;
        if (this.lanes.get(key) === current) this.lanes.delete(key);
        if (!settling) this.settleLater(key, vendor, session, current.path, current.run);
      });
  }

  /** Reads the session's file once more in a moment (the lines an agent writes after its last hook). */
  private settleLater(key: string, vendor: VendorId, session: string, path: string, run: string | null): void {
    if (this.closed || this.limits.settleMs <= 0) return;
    clearTimeout(this.settles.get(key));
    const timer = setTimeout(() => {
      this.settles.delete(key);
      this.observe(vendor, session, path, run, true);
    }, this.limits.settleMs);
    timer.unref();
    this.settles.set(key, timer);
  }

  /** Resolves once no read is under way (shutdown, tests). */
  async idle(): Promise<void> {
    while (true) {
      const running = [...this.lanes.values()].map((l) => l.running).filter((r): r is Promise<void> => r !== null);
      if (running.length === 0) return;
      await Promise.all(running);
    }
  }

  /** Stops taking new reads; resolves once those under way are done. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.settles.values()) clearTimeout(timer);
    this.settles.clear();
    await this.idle();
  }

  /** A path a payload may name: an absolute string inside one of the vendor's roots, or why not. */
  private lexicalCheck(format: TranscriptFormat, path: unknown): { path: string; roots: readonly string[] } | string {
    if (typeof path !== 'string' || path === '') return 'not a path';
    if (path.length > MAX_PATH_CHARS || path.includes('\u0000')) return 'not a path';
    if (!isAbsolute(path)) return 'not an absolute path';
    const roots = format.roots(this.deps.home, this.deps.vars ?? {}).map((r) => resolve(r));
    const normal = resolve(path);
    return roots.some((r) => normal.startsWith(r + sep)) ? { path: normal, roots } : 'outside the vendor transcript directories';
  }

  private refuse(vendor: VendorId, session: string, path: string, reason: string): void {
    // Audited once per path: a path refused stays refused, whichever session names it again.
    const key = `${vendor}\u0000${path}`;
    if (this.refusedPaths.has(key)) return;
    if (this.refusedPaths.size >= this.limits.maxRefused) this.refusedPaths.delete(this.refusedPaths.values().next().value as string);
    this.refusedPaths.add(key);
    this.deps.logger.warn('transcript path refused', { vendor, session, reason });
    this.deps.refused(vendor, session, path, reason);
  }

  /** One read of the session's file from its offset, bounded; facts delivered, then the offset kept. */
  private async pass(vendor: VendorId, session: string, format: TranscriptFormat, path: string, run: string | null): Promise<void> {
    const key = `${vendor}\u0000${session}`;
    // Through symlinks: the real file must still be inside a real root.
    let real: string;
    try {
      real = await realpath(path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.files.delete(key);
      return;
    }
    const realRoots = await Promise.all(format.roots(this.deps.home, this.deps.vars ?? {}).map((r) => realpath(r).catch(() => resolve(r))));
    if (!realRoots.some((r) => real.startsWith(r + sep))) {
      this.files.delete(key);
      this.refuse(vendor, session, path, 'resolves outside the vendor transcript directories');
      return;
    }
    let handle: FileHandle;
    try {
      handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') this.files.delete(key);
      else this.deps.logger.warn('transcript could not be opened', { vendor, session, error: String(error) });
      return;
    }
    try {
      const stat = await handle.stat();
      if (!stat.isFile()) {
        this.refuse(vendor, session, path, 'not a regular file');
        return;
      }
      const state = this.stateOf(vendor, session, real, stat.ino, stat.size);
      // The offset always follows a line end: anything else there means the file was truncated and written again.
      if (state.offset > 0 && !state.skipping && !(await endsLine(handle, state.offset))) {
        state.offset = 0;
        state.parser = {};
      }
      const facts: TranscriptFact[] = [];
      const end = Math.min(stat.size, state.offset + this.limits.maxReadBytes);
      let offset = state.offset;
      let skipping = state.skipping;
      while (offset < end) {
        const length = Math.min(end - offset, this.limits.maxLineBytes + 1);
        const buffer = Buffer.allocUnsafe(length);
        const { bytesRead } = await handle.read(buffer, 0, length, offset);
        if (bytesRead === 0) break;
        const chunk = buffer.subarray(0, bytesRead);
        let start = 0;
        let nl = chunk.indexOf(NEWLINE, start);
        while (nl !== -1) {
          if (!skipping && nl > start) facts.push(...format.parseLine(chunk.toString('utf8', start, nl), state.parser));
          skipping = false;
          start = nl + 1;
          nl = chunk.indexOf(NEWLINE, start);
        }
        if (start === 0 && bytesRead > this.limits.maxLineBytes) {
          // No line end within the bound: this line is skipped whole, up to its end.
          if (!skipping) this.deps.logger.warn('transcript line over the bound skipped', { vendor, session, limit: this.limits.maxLineBytes });
          skipping = true;
          start = bytesRead;
        }
        // No progress: a partial last line, read again once its end is written.
        if (start === 0) break;
        offset += start;
      }
      if (facts.length > 0) await this.deps.deliver(vendor, session, facts, run);
      state.offset = offset;
      state.skipping = skipping;
      // Only a position at a line end is kept: one inside a skipped line is not one to resume at.
      if (!skipping) this.positions.set(vendor, session, { path: real, ino: stat.ino, offset });
    } finally {
      await handle.close();
    }
  }

  /** The session's read state, started again when the file is another one or shrank. */
  private stateOf(vendor: VendorId, session: string, path: string, ino: number, size: number): FileState {
    const key = `${vendor}\u0000${session}`;
    let state = this.files.get(key);
    if (state === undefined) {
      const kept = this.positions.get(vendor, session);
      const fresh = kept === undefined || kept.path !== path || kept.ino !== ino || kept.offset > size;
      // A long file first seen is read from its last window only, from the first line end in it.
      const offset = !fresh ? kept.offset : size > this.limits.firstWindowBytes ? size - this.limits.firstWindowBytes : 0;
      state = { path, ino, offset, skipping: fresh && offset > 0, parser: {} };
    } else if (state.path !== path || state.ino !== ino || state.offset > size) {
      // Rotated or truncated: the new content is read from its start.
      state = { path, ino, offset: 0, skipping: false, parser: {} };
    }
    this.files.delete(key);
    this.files.set(key, state);
    if (this.files.size > this.limits.maxFiles) this.files.delete(this.files.keys().next().value as string);
    return state;
  }
}
