/**
 * The commit journal's record format (deferred-commit.ts). A record is a frame: its payload's
 * length (u32 LE) and CRC-32 (u32 LE), then the payload:
 *
 *   f64 sequence · u16 statements defined here · [u16 id · string SQL]… · u32 writes ·
 *   [u16 id · u8 kind (0 run, 1 all) · u8 argument count · value…]…
 *
 * and a value is one type byte and its bytes: null; undefined; a number (f64); a string (u32
 * length, UTF-8); a bigint (as a string); bytes (u32 length, raw); an array (u16 count, values);
 * named parameters (u16 count, [string key · value]…). Binary rather than JSON: an event's JSON
 * text, the bulk of a hook's record, is copied as is instead of escaped into another JSON string.
 */
import { crc32 } from 'node:zlib';

/** One write statement of a record: its id, 0 = run / 1 = all, and its arguments. */
export type JournalWrite = readonly [id: number, kind: 0 | 1, args: readonly unknown[]];

/** One decoded record. */
export interface JournalRecord {
  readonly seq: number;
  /** Statements first named in this record: id → SQL. */
  readonly defs: ReadonlyMap<number, string>;
  readonly writes: readonly JournalWrite[];
}

export const FRAME_HEAD = 8;
const START_BYTES = 64 * 1024;
const KEEP_BYTES = 1024 * 1024;

const T_NULL = 0;
const T_UNDEFINED = 1;
const T_NUMBER = 2;
const T_STRING = 3;
const T_BIGINT = 4;
const T_BYTES = 5;
const T_ARRAY = 6;
const T_NAMED = 7;

/** Encodes records into one reused buffer (so a turn allocates nothing but growth). */
export class JournalEncoder {
  private buf = Buffer.allocUnsafe(START_BYTES);
  private at = 0;

  /**
   * The framed record (a view of the encoder's buffer, valid until the next call). Throws a
   * TypeError for an argument SQLite cannot bind (the statement would have thrown first).
   */
  encode(
    seq: number,
    defs: readonly (readonly [number, string])[],
    writes: readonly JournalWrite[],
  ): Buffer {
    // A buffer grown for one large turn is not kept for the small ones after it.
    if (this.buf.length > KEEP_BYTES) this.buf = Buffer.allocUnsafe(START_BYTES);
    this.at = FRAME_HEAD;
    this.room(8 + 2 + 4);
    this.buf.writeDoubleLE(seq, this.at);
    this.at += 8;
    this.buf.writeUInt16LE(defs.length, this.at);
    this.at += 2;
    for (const [id, sql] of defs) {
      this.u16(id);
      this.string(sql);
    }
    this.room(4);
    this.buf.writeUInt32LE(writes.length, this.at);
    this.at += 4;
    for (const [id, kind, args] of writes) {
      if (args.length > 255)
        throw new TypeError('commit journal: more than 255 arguments to one statement');
      this.room(4);
      this.buf.writeUInt16LE(id, this.at);
      this.buf[this.at + 2] = kind;
      this.buf[this.at + 3] = args.length;
      this.at += 4;
      for (const a of args) this.value(a, true);
    }
    const length = this.at - FRAME_HEAD;
    this.buf.writeUInt32LE(length, 0);
    this.buf.writeUInt32LE(crc32(this.buf.subarray(FRAME_HEAD, this.at)), 4);
    return this.buf.subarray(0, this.at);
  }

  private room(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + bytes) size *= 2;
    const grown = Buffer.allocUnsafe(size);
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  private u16(n: number): void {
    this.room(2);
    this.buf.writeUInt16LE(n, this.at);
    this.at += 2;
  }

  private string(s: string): void {
    // UTF-8 is at most three bytes per UTF-16 unit.
    this.room(4 + s.length * 3);
    const n = this.buf.write(s, this.at + 4, 'utf8');
    this.buf.writeUInt32LE(n, this.at);
    this.at += 4 + n;
  }

  private value(v: unknown, top: boolean): void {
    this.room(1 + 8);
    if (typeof v === 'string') {
      this.buf[this.at++] = T_STRING;
      this.string(v);
    } else if (typeof v === 'number') {
      this.buf[this.at++] = T_NUMBER;
      this.buf.writeDoubleLE(v, this.at);
      this.at += 8;
    } else if (v === null) {
      this.buf[this.at++] = T_NULL;
    } else if (v === undefined) {
      this.buf[this.at++] = T_UNDEFINED;
    } else if (typeof v === 'bigint') {
      this.buf[this.at++] = T_BIGINT;
      this.string(v.toString());
    } else if (ArrayBuffer.isView(v)) {
      this.buf[this.at++] = T_BYTES;
      const bytes = Buffer.from(v.buffer, v.byteOffset, v.byteLength);
      this.room(4 + bytes.length);
      this.buf.writeUInt32LE(bytes.length, this.at);
      bytes.copy(this.buf, this.at + 4);
      this.at += 4 + bytes.length;
    } else if (top && Array.isArray(v)) {
      this.buf[this.at++] = T_ARRAY;
      this.u16(v.length);
      for (const item of v) this.value(item, false);
    } else if (top && typeof v === 'object') {
      this.buf[this.at++] = T_NAMED;
      const entries = Object.entries(v);
      this.u16(entries.length);
      for (const [key, item] of entries) {
        this.string(key);
        this.value(item, false);
      }
    } else {
      throw new TypeError(`commit journal: cannot record a ${typeof v} argument`);
    }
  }
}

/** The valid records of a journal's bytes, in order: a torn or garbled frame ends them. */
export function decodeJournal(bytes: Buffer): JournalRecord[] {
  const records: JournalRecord[] = [];
  let at = 0;
  while (at + FRAME_HEAD <= bytes.length) {
    const length = bytes.readUInt32LE(at);
    if (at + FRAME_HEAD + length > bytes.length) break;
    const payload = bytes.subarray(at + FRAME_HEAD, at + FRAME_HEAD + length);
    if (crc32(payload) !== bytes.readUInt32LE(at + 4)) break;
    let record: JournalRecord;
    try {
      record = new Reader(payload).record();
    } catch {
      break;
    }
    records.push(record);
    at += FRAME_HEAD + length;
  }
  return records;
}

class Reader {
  private at = 0;
  constructor(private readonly b: Buffer) {}

  record(): JournalRecord {
    const seq = this.b.readDoubleLE(this.at);
    this.at += 8;
    const defs = new Map<number, string>();
    for (let n = this.u16(); n > 0; n--) {
      const id = this.u16();
      defs.set(id, this.string());
    }
    const writes: JournalWrite[] = [];
    let count = this.b.readUInt32LE(this.at);
    this.at += 4;
    for (; count > 0; count--) {
      const id = this.u16();
      const kind = this.b[this.at] as 0 | 1;
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

  private string(): string {
    const n = this.b.readUInt32LE(this.at);
    if (this.at + 4 + n > this.b.length) throw new Error('bad string');
    const s = this.b.toString('utf8', this.at + 4, this.at + 4 + n);
    this.at += 4 + n;
    return s;
  }

  private value(top: boolean): unknown {
    const type = this.b[this.at++];
    switch (type) {
      case T_NULL:
        return null;
      case T_UNDEFINED:
        return undefined;
      case T_NUMBER: {
        const v = this.b.readDoubleLE(this.at);
        this.at += 8;
        return v;
      }
      case T_STRING:
        return this.string();
      case T_BIGINT:
        return BigInt(this.string());
      case T_BYTES: {
        const n = this.b.readUInt32LE(this.at);
        if (this.at + 4 + n > this.b.length) throw new Error('bad bytes');
        const v = Buffer.from(this.b.subarray(this.at + 4, this.at + 4 + n));
        this.at += 4 + n;
        return v;
      }
      case T_ARRAY:
        if (!top) break;
        return Array.from({ length: this.u16() }, () => this.value(false));
      case T_NAMED: {
        if (!top) break;
        const named: Record<string, unknown> = {};
        for (let n = this.u16(); n > 0; n--) {
          const key = this.string();
          named[key] = this.value(false);
        }
        return named;
      }
    }
    throw new Error(`bad value type ${type}`);
  }
}
