/**
 * The full histories of the sessions opened in the detail view: each one read from /api in large
 * pages first, then kept live by a subscription that resumes exactly after what its log holds.
 * At most a few closed histories stay in memory for a quick return.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { ApiCall } from '../api/api-client';
import type { AepSocket } from '../api/aep-socket';
import { newId } from '../api/ids';
import { EventLog, type LogPosition } from './event-log';
import { loadHistory, loadTail } from './history-load';

/** Session histories kept in memory for a quick return. */
const KEEP_DETAIL = 4;

/** What the histories are read and followed through. */
export interface SessionDetailsDeps {
  readonly api: ApiCall;
  readonly socket: () => AepSocket;
  /** The detail area changed (a page arrived, a subscription was confirmed, an event was added). */
  readonly changed: () => void;
}

/** Full histories per session, with their subscriptions. */
export class SessionDetails {
  /** Full histories of sessions opened in the detail view. */
  readonly logs = new Map<string, EventLog>();
  /** Sessions whose full-history subscription the relay confirmed (its replay is under way). */
  readonly ready = new Set<string>();
  /** Replay-exhausted notices per session: the history shown starts later than asked. */
  readonly exhausted = new Map<string, { epoch: number; seq: number }>();
  private readonly subs = new Map<string, string>();
  /** Sessions whose history is being read from /api (value: the subscription id it is for). */
  private readonly loading = new Map<string, string>();

  constructor(private readonly deps: SessionDetailsDeps) {}

  /** Whether the session's held history is still being read from /api (older events may be missing). */
  isLoading(session: string): boolean {
    return this.loading.has(session);
  }

  /** Whether the session's history is open (subscribed) now. */
  isOpen(session: string): boolean {
    return this.subs.has(session);
  }

  /** The relay confirmed subscription `id`: its session's replay is under way. */
  subscribed(id: string): void {
    for (const [session, sub] of this.subs) {
      if (sub === id) {
        this.ready.add(session);
        this.deps.changed();
      }
    }
  }

  /** The relay no longer holds the start of the session's history. */
  replayExhausted(session: string, earliest: { epoch: number; seq: number }): void {
    this.exhausted.set(session, earliest);
    this.deps.changed();
  }

  /** A live event: added to the session's history unless /api is still reading it (the replay brings it then). */
  admit(session: string, event: AepEvent): void {
    const log = this.logs.get(session);
    if (log && !this.loading.has(session) && log.add(event)) this.deps.changed();
  }

  /** Drops what an ended, released session held. */
  forget(session: string): void {
    this.exhausted.delete(session);
    this.logs.delete(session);
  }

  /** Opens (or resumes) the full-history subscription of one session. */
  open(session: string): EventLog {
    let log = this.logs.get(session);
    if (!log) {
      // Not seeded from the fleet log: the replay arrives in order, and appending in order is
      // what keeps a 10,000-event history cheap to load.
      log = new EventLog();
      this.logs.set(session, log);
    }
    if (!this.subs.has(session)) {
      const id = `session-${newId()}`;
      this.subs.set(session, id);
      this.loading.set(session, id);
      void this.read(session, id, log)
        .catch(() => null)
        .then((resume) => {
          if (this.loading.get(session) === id) {
            this.loading.delete(session);
            this.deps.changed();
          }
          if (this.subs.get(session) !== id) return;
          let first = resume;
          this.deps.socket().subscribe(id, {
            filter: { session },
            // After what the log holds (or, once, where a cut-short read stopped); seqs start at
            // 1: (0, 0) asks for the whole retained history.
            from: () => {
              const from = first ?? this.logs.get(session)?.last ?? { epoch: 0, seq: 0 };
              first = null;
              return [{ session, ...from }];
            },
          });
        });
    }
    this.deps.changed();
    return log;
  }

  /**
   * Reads the held history before the subscription: into a fresh log, the newest events first
   * (one small request, what the timeline opens on) while the whole history is read from the
   * start into a new log that takes the first one's place in one update; into a log kept from an earlier
   * visit, the pages after what it holds. Stream events for the session wait meanwhile: the
   * subscription's replay brings them in order. Resolves with the position the subscription
   * resumes after (null: after what the session's log holds).
   */
  private async read(session: string, id: string, log: EventLog): Promise<LogPosition | null> {
    const hooks = {
      wanted: () => this.subs.get(session) === id,
      page: (exhausted: LogPosition | undefined) => {
        if (exhausted) this.exhausted.set(session, exhausted);
        this.deps.changed();
      },
    };
    if (log.size > 0) {
      await loadHistory(this.deps.api, session, log, hooks);
      return null;
    }
    // The whole history from the start is asked at once too, into a new log (its response is
    // built while the tail is shown); it takes the tail's place in one swap: one rebuild.
    const whole = new EventLog();
    let complete = false;
    const quiet = {
      wanted: hooks.wanted,
      page: (exhausted: LogPosition | undefined) => {
        if (exhausted) this.exhausted.set(session, exhausted);
      },
      complete: () => {
        complete = true;
      },
    };
    // The tail is asked first: the daemon answers in order, the small page before the large one.
    const first = loadTail(this.deps.api, session, log, hooks);
    const rest = loadHistory(this.deps.api, session, whole, quiet).catch(() => 0);
    const tail = await first;
    if (tail.ok && !tail.earlier) return null;
    await rest;
    if (!hooks.wanted()) return null;
    // Cut short: the subscription's replay fills in from where the read stopped, before the tail.
    const resume = complete ? null : (whole.last ?? { epoch: 0, seq: 0 });
    for (const event of log.events) whole.add(event);
    // A new log with older events before what was shown: incremental readers start over.
    whole.reorders = log.reorders + 1;
    this.logs.set(session, whole);
    this.deps.changed();
    return resume;
  }

  /** Stops live updates of a session's full history (the log stays for a quick return). */
  close(session: string): void {
    const id = this.subs.get(session);
    if (!id) return;
    this.subs.delete(session);
    this.ready.delete(session);
    this.deps.socket().unsubscribe(id);
    // Keep at most a few histories in memory.
    if (this.logs.size > KEEP_DETAIL) {
      for (const key of this.logs.keys()) {
        if (key !== session && !this.subs.has(key)) {
          this.logs.delete(key);
          break;
        }
      }
    }
  }
}
