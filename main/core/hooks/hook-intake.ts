/**
 * The hook intake: a plain hook call is acknowledged once its payload is durable, and handled
 * with the calls around it in one batch a few milliseconds later.
 *
 * A call is plain when its reply cannot depend on anything but the payload being a hook call:
 * no opt-in on the call or on its session (no steering, no permission loop), a payload the
 * vendor's adapter parses, a confirmed session, not doctor's synthetic hook. Its reply is then
 * the vendor's empty reply, whatever the handling gives (an internal failure answers the same).
 * Such a call is written to the intake log (`<database>-hooks`, store/intake-log.ts) with the
 * time it came, and answered; every `windowMs` the calls taken since are handled through the
 * hook service (at once when 64 are waiting), each at the time it came, and the log's mark goes into the same group commit as
 * their events and session rows. A kill -9 in between loses nothing that was answered: the
 * records past the mark are handled at the next start, before the daemon serves.
 *
 * The batch is what makes this pay: handling thirty calls back to back costs far less CPU than
 * handling each on a wake-up of its own (the code and its data are in the caches), and a call's
 * events reach the store and the subscribers at most `windowMs` later. Whatever could observe the
 * difference drains the intake first, synchronously: any other hook call (so a session's calls
 * are handled in order), every other request and WebSocket upgrade of the listener, shutdown.
 */
import type { VendorId } from '../../../common/vendors';
import type { Logger } from '../logger';
import { parseJsonBytes } from '../server/http-util';
import type { IntakeLog, IntakeRecord } from '../store/intake-log';
import type { HookCall, HookReply } from '../vendors/types';

/** The intake log of the database file `file`. */
export const hookIntakePath = (file: string): string => `${file}-hooks`;

/** How long a taken call waits at most for its batch (ms). */
export const DEFAULT_INTAKE_WINDOW_MS = 20;
/**
 * The most calls one batch handles: a full batch is handled as soon as the replies of its turn
 * are out, so a batch never holds the event loop much longer than this many calls take (about
 * 3 ms here), which is what a request arriving meanwhile waits.
 */
export const DEFAULT_INTAKE_BATCH = 64;
/**
 * How long a batch handled in the background (its window ran out, or it filled) holds the event
 * loop at most before the rest of it goes on in the next turn (ms). Warm, 64 calls take about a
 * millisecond; right after a start, while the code is still being compiled, the same batch took up
 * to 13 ms here, and every request arriving meanwhile waited that long.
 */
export const INTAKE_STEP_BUDGET_MS = 2;

/** A call taken and not handled yet. */
interface Taken {
  readonly seq: number;
  readonly vendor: VendorId;
  readonly payload: unknown;
  readonly at: number;
  /** The payload as the vendor's adapter parsed it when the call was taken (absent for a recovered record). */
  readonly call?: HookCall;
}

/** A plain call: the reply it gets now, and the payload as parsed to decide that (handled without parsing it again). */
export interface PlainCall {
  readonly reply: HookReply;
  readonly call: HookCall;
}

/** What the intake is built from. */
export interface HookIntakeDeps {
  readonly log: IntakeLog;
  /** The empty reply of a plain call and its parsed payload, or null when the call is not plain (it is handled at once). */
  readonly plainReply: (vendor: VendorId, payload: unknown) => PlainCall | null;
  /**
   * Handles one taken call, its clock reading `at` while it runs (the hook service, no reply);
   * `call` is its parsed payload when the call was taken in this run. Settles once handled.
   */
  readonly handle: (vendor: VendorId, payload: unknown, at: number, call: HookCall | undefined) => Promise<unknown>;
  /** Commits the current turn's writes now (a reader is about to look). */
  readonly commitNow: () => void;
  readonly clock: () => number;
  readonly logger: Logger;
  readonly windowMs?: number;
  readonly maxBatch?: number;
  readonly isVendor: (vendor: string) => vendor is VendorId;
  /** The clock a background batch is timed with (ms; default `performance.now`). */
  readonly now?: () => number;
}

/** Takes plain hook calls and handles them in batches. */
export class HookIntake {
  private taken: Taken[] = [];
  private timer: NodeJS.Timeout | undefined;
  private full: NodeJS.Immediate | undefined;
  private closed = false;
  private readonly windowMs: number;
  private readonly maxBatch: number;
  private readonly now: () => number;

  constructor(private readonly deps: HookIntakeDeps) {
    this.windowMs = deps.windowMs ?? DEFAULT_INTAKE_WINDOW_MS;
    this.maxBatch = deps.maxBatch ?? DEFAULT_INTAKE_BATCH;
    this.now = deps.now ?? (() => performance.now());
  }

  /** How many calls wait for their batch. */
  get waiting(): number {
    return this.taken.length;
  }

  /**
   * Takes a call when it is plain: its reply, sent by the caller now (the payload is durable);
   * null when the call is to be handled at once (everything taken before it is handled first).
   */
  take(vendor: VendorId, body: Buffer, payload: unknown): HookReply | null {
    if (this.closed) return null;
    const plain = this.deps.plainReply(vendor, payload);
    if (plain === null) return null;
    const at = this.deps.clock();
    let seq: number;
    try {
      seq = this.deps.log.append([Buffer.from(`${vendor}\n${at}\n`, 'latin1'), body]);
    } catch (error) {
      // Not durable, so not taken: the call is handled the ordinary way.
      this.deps.logger.warn('the hook intake could not write a call; it is handled at once', { vendor, error: String(error) });
      return null;
    }
    this.taken.push({ seq, vendor, payload, at, call: plain.call });
    this.timer ??= setTimeout(this.background, this.windowMs);
    // After this turn's replies (the check phase), not before them.
    if (this.taken.length >= this.maxBatch) this.full ??= setImmediate(this.background);
    return plain.reply;
  }

  /** A batch nothing waits for: handled within the step budget, the rest in the turns after. */
  private readonly background = (): void => {
    void this.handleTaken(INTAKE_STEP_BUDGET_MS, false);
  };

  /**
   * Handles every call taken so far, in order, now; with `commit`, their writes are committed
   * before this returns (a reader is about to look). Returns what settles once each call's
   * handling has finished (what runs after its commit, such as a session's end), or undefined
   * when nothing was taken.
   */
  drain(commit = false): Promise<void> | undefined {
    return this.handleTaken(Infinity, commit);
  }

  /**
   * Handles the calls taken, in order, until `budgetMs` has passed (one call at least); what is
   * left goes on in the next turn, ahead of anything taken meanwhile.
   */
  private handleTaken(budgetMs: number, commit: boolean): Promise<void> | undefined {
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (this.full !== undefined) clearImmediate(this.full);
    this.timer = undefined;
    this.full = undefined;
    if (this.taken.length === 0) return undefined;
    // Out of `taken` before any is handled: handling a call drains the intake first (the hook
    // service's order rule), which must find nothing of this batch.
    const taken = this.taken;
    this.taken = [];
    const started = budgetMs === Infinity ? 0 : this.now();
    const handled: Promise<unknown>[] = [];
    let n = 0;
    while (n < taken.length) {
      const t = taken[n++];
      try {
        handled.push(this.deps.handle(t.vendor, t.payload, t.at, t.call));
      } catch (error) {
        this.deps.logger.error('a taken hook call could not be handled', { vendor: t.vendor, error: String(error) });
      }
      if (budgetMs !== Infinity && this.now() - started >= budgetMs) break;
    }
    // Nothing can be taken while the loop above runs: the rest is all there is, in order.
    if (n < taken.length) {
      this.taken = taken.slice(n);
      this.full = setImmediate(this.background);
    }
    this.deps.log.consumed(taken[n - 1].seq);
    if (commit) this.deps.commitNow();
    return Promise.allSettled(handled).then(() => undefined);
  }

  /** Hands the records a previous run took and never handled back for handling (at start). */
  recover(records: readonly IntakeRecord[]): void {
    let last = 0;
    for (const r of records) {
      last = r.seq;
      const call = decodeRecord(r.body, this.deps.isVendor);
      if (call === null) {
        this.deps.logger.error('an intake record could not be read; it is skipped', { seq: r.seq });
        continue;
      }
      this.taken.push({ seq: r.seq, ...call });
    }
    if (this.taken.length > 0) void this.drain(true);
    else if (last > 0) this.deps.log.consumed(last);
  }

  /** Handles what is taken and takes no more (shutdown). */
  async close(): Promise<void> {
    this.closed = true;
    await this.drain(true);
    this.deps.log.close();
  }
}

/** A record's call: `<vendor>\n<time ms>\n<payload bytes>`, or null when it is not one. */
function decodeRecord(body: Buffer, isVendor: (v: string) => v is VendorId): Omit<Taken, 'seq'> | null {
  const first = body.indexOf(10);
  const second = first < 0 ? -1 : body.indexOf(10, first + 1);
  if (second < 0) return null;
  const vendor = body.toString('latin1', 0, first);
  const at = Number(body.toString('latin1', first + 1, second));
  if (!isVendor(vendor) || !Number.isFinite(at)) return null;
  const payload = parseJsonBytes(body.subarray(second + 1));
  if (!payload.ok) return null;
  return { vendor, payload: payload.value, at };
}
