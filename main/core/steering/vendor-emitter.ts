/**
 * One vendor's in-process emitter: it owns `seq` for that vendor's sessions (epoch from durable
 * memory, so a daemon restart starts a new one), resolves the mappings' cause hints to event ids,
 * and declares per session which control verbs it accepts; the roster shows this live.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { ControlCapability } from '../../../common/aep/frames';
import type { VendorId } from '../../../common/vendors';
import { isoTime } from '../aep/iso-time';
import type { EmitterLink } from '../relay/emitter-link';
import type { Clock, EventDraft, VendorChannel } from './steering-types';
import type { MappedEvent, MappingState } from '../vendors/types';
import { INITIAL_MAPPING_STATE } from '../vendors/types';
import { rememberKey, stampDraft, type StampFrame } from './emitter-stamp';


/** The instance name the companion's in-process emitters declare (agent = the vendor id). */
export const EMITTER_INSTANCE = 'aep-companion';

/** The ack window we declare: acks are decided synchronously, far inside the AEP-0004 default. */
export const ACK_WINDOW_MS = 10_000;

/**
 * Correlation keys remembered per session for cause links; older ones fall off first. Keys are let
 * go when the lifecycle they open ends (CLOSES), so this only bounds keys left open (lost hooks).
 */
export const MAX_CAUSE_KEYS = 256;

/**
 * Terminal events (AEP-0002) and the opening event type whose key they end: after a tool call,
 * run or subagent ends, nothing names its opening event again, so its key is let go. The terminal
 * event's own key is not remembered either (no event names a terminal one as its cause). Attention
 * keys stay until they fall off: several followers may name one request.
 */
const CLOSES: Readonly<Record<string, string>> = {
  'tool.completed': 'tool.requested',
  'tool.failed': 'tool.requested',
  'tool.denied': 'tool.requested',
  'run.finished': 'run.started',
  'run.failed': 'run.started',
  'run.cancelled': 'run.started',
  'delegation.subagent.stopped': 'delegation.subagent.started',
};

/** Sessions whose state (seq, mapping, cause keys) is kept in memory; the least recently used go first. */
export const MAX_TRACKED_SESSIONS = 5_000;

interface SessionSeq {
  seq: number;
  mapping: MappingState;
  readonly causes: Map<string, string>;
  /** The session's source URI, built once. */
  readonly source: string;
  lastUsedMs: number;
}

/** Bounds and recovery of the per-session state. */
export interface VendorEmitterOptions {
  /** At most this many sessions are held (default MAX_TRACKED_SESSIONS). */
  readonly maxSessions?: number;
  /**
   * The highest seq this emitter's epoch already used in a session (0 when none): a session whose
   * state was let go resumes after it, so a position is never reused.
   */
  readonly resumeSeq?: (session: string) => number;
}

/** The source URI of a vendor session (AEP-0001 §5.1 recommended form). */
export const sessionSource = (vendor: VendorId, session: string): string =>
  `aep://localhost/agent/${vendor}/session/${encodeURIComponent(session)}`;

/** True when two steering verb declarations name the same verbs in the same order. */
function sameVerbs(a: string | readonly string[], b: string | readonly string[]): boolean {
  if (typeof a === 'string' || typeof b === 'string') return a === b;
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/** What a session declares: the verbs it accepts now. */
export interface Declaration {
  readonly instruct: boolean;
  readonly permissions: boolean;
}

/** The in-process emitter of one vendor. */
export class VendorEmitter implements VendorChannel {
  private readonly sessions = new Map<string, SessionSeq>();
  /** The session `sessions` holds last (the most recently used), or null when that is not known. */
  private lastUsed: string | null = null;
  private readonly declared = new Map<string, string>();
  /** What each claimed session declared last, as given (compared before anything is built). */
  private readonly lastDeclared = new Map<string, { instruct: boolean; permissions: boolean; verbs: string | readonly string[] }>();

  constructor(
    readonly vendor: VendorId,
    private readonly link: EmitterLink,
    readonly epoch: number,
    private readonly clock: Clock,
    private readonly newId: () => string,
    private readonly options: VendorEmitterOptions = {},
  ) {}

  /** The session's mapping state (runs, open tools) carried between hook calls. */
  mappingState(session: string): MappingState {
    return this.seqOf(session).mapping;
  }

  /** Stores the mapping state after a hook call. */
  setMappingState(session: string, state: MappingState): void {
    this.seqOf(session).mapping = state;
  }

  /**
   * Stamps envelope-less mapped events, turning cause hints into the ids of the events they name.
   * An attention follower (`subjectFromCause`) whose hint resolves takes the request's event id as
   * its `subject` too (AEP-0002 §7.1); unresolved, it keeps the mapped subject. A mapped
   * `attention.answered` is followed by its `attention.resolved` (answered).
   */
  stampMapped(session: string, events: readonly MappedEvent[]): AepEvent[] {
    const s = this.seqOf(session);
    const frame = this.frame(s, session);
    const out: AepEvent[] = [];
    for (const e of events) {
      const cause = e.causeHint ? s.causes.get(`${e.causeHint.type}\u0000${e.causeHint.key}`) : undefined;
      const draft: EventDraft = {
        type: e.type,
        subject: e.subjectFromCause === true && cause !== undefined ? cause : e.subject,
        run: e.run,
        step: e.step,
        severity: e.severity,
        capture: e.capture,
        data: e.data,
        cause,
      };
      const stamped = stampDraft(frame, draft, this.newId(), (s.seq += 1));
      out.push(stamped);
      const closes = CLOSES[e.type];
      if (closes !== undefined) {
        if (e.causeHint?.type === closes) s.causes.delete(`${closes}\u0000${e.causeHint.key}`);
      } else if (e.key !== undefined) rememberKey(s.causes, `${e.type}\u0000${e.key}`, stamped.id, MAX_CAUSE_KEYS);
      if (e.type !== 'attention.answered') continue;
      // A mapped answer was applied by the vendor itself (its own UI): the emitter owns resolution
      // (AEP-0002 §7.1 rules 2 and 4), so the request is resolved at once, naming it the same way.
      const resolved: EventDraft = {
        type: 'attention.resolved',
        subject: stamped.subject,
        run: e.run,
        capture: e.capture === 'none' ? 'none' : 'metadata',
        data: { resolution: 'answered' },
        cause: stamped.id,
      };
      out.push(stampDraft(frame, resolved, this.newId(), (s.seq += 1)));
    }
    return out;
  }

  stamp(session: string, drafts: readonly EventDraft[]): AepEvent[] {
    const s = this.seqOf(session);
    const frame = this.frame(s, session);
    return drafts.map((d) => stampDraft(frame, d, this.newId(), (s.seq += 1)));
  }

  private frame(s: SessionSeq, session: string): StampFrame {
    return { agent: this.vendor, source: s.source, session, epoch: this.epoch, time: isoTime(this.clock()) };
  }

  /** Hands stamped events to the relay (validated now, admitted in the store's next group commit). */
  send(events: readonly AepEvent[]): Promise<void> {
    return events.length === 0 ? Promise.resolve() : this.link.emit(events);
  }

  /**
   * Claims the session with the verbs it accepts now; a no-op when the declaration is unchanged.
   * `instructType` is the steering verb, or the list of them for a vendor steered otherwise (Cline).
   */
  declare(session: string, d: Declaration, instructType: string | readonly string[]): void {
    // Every hook call declares again: an unchanged declaration is recognised without building it.
    const last = this.lastDeclared.get(session);
    if (last !== undefined && last.instruct === d.instruct && last.permissions === d.permissions && sameVerbs(last.verbs, instructType)) return;
    this.claimWith(session, d, instructType);
    this.lastDeclared.set(session, { instruct: d.instruct, permissions: d.permissions, verbs: typeof instructType === 'string' ? instructType : [...instructType] });
  }

  private claimWith(session: string, d: Declaration, instructType: string | readonly string[]): void {
    const steering = typeof instructType === 'string' ? [instructType] : instructType;
    const accepts = [...new Set([...(d.instruct ? steering : []), ...(d.permissions ? ['control.attention.respond'] : [])])];
    const key = accepts.join(' ');
    if (this.declared.get(session) === key) return;
    const control: ControlCapability = { accepts, ack_window_ms: ACK_WINDOW_MS };
    this.link.claim(session, control);
    this.declared.set(session, key);
  }

  /**
   * Releases the session's claim (it leaves the roster) and forgets its correlation keys. The seq
   * counter stays: events after the release (drops, a late hook) must never reuse a position.
   */
  release(session: string): void {
    this.link.release(session);
    this.declared.delete(session);
    this.lastDeclared.delete(session);
    const s = this.sessions.get(session);
    if (s) {
      s.causes.clear();
      s.mapping = INITIAL_MAPPING_STATE;
    }
  }

  /**
   * Gives up the session's claim, keeping its positions and mapping state: another source owns
   * control of it (sessions/registry.ts). Declaring it again claims it again.
   */
  yieldClaim(session: string): void {
    if (!this.declared.has(session) && !this.lastDeclared.has(session)) return;
    this.link.release(session);
    this.declared.delete(session);
    this.lastDeclared.delete(session);
  }

  /**
   * Lets go of the in-memory state of a session (claim included); a later event resumes after the
   * highest position the store holds for it.
   */
  forget(session: string): void {
    if (this.lastUsed === session) this.lastUsed = null;
    this.link.release(session);
    this.declared.delete(session);
    this.lastDeclared.delete(session);
    this.sessions.delete(session);
  }

  /** Lets go of every session not used since `beforeMs` (ended or silent ones); returns how many. */
  forgetIdle(beforeMs: number): number {
    let forgotten = 0;
    // Map order is least recently used first: stop at the first one used since.
    for (const [session, s] of this.sessions) {
      if (s.lastUsedMs >= beforeMs) break;
      this.forget(session);
      forgotten += 1;
    }
    return forgotten;
  }

  /** How many correlation keys are held for `session` (0 when its state is not held). */
  causeKeys(session: string): number {
    return this.sessions.get(session)?.causes.size ?? 0;
  }

  /** How many sessions are held in memory. */
  get tracked(): number {
    return this.sessions.size;
  }

  /** Subscribes to the commands the relay routes to this vendor's sessions. */
  onCommand(handler: (command: AepEvent) => Promise<void>): () => void {
    return this.link.onCommand((command) => handler(command));
  }

  /** Closes the link: every claim is released. */
  close(): void {
    this.link.close();
  }

  /** Sessions currently claimed. */
  claimed(): string[] {
    return [...this.declared.keys()];
  }

  private seqOf(session: string): SessionSeq {
    const now = this.clock();
    let s = this.sessions.get(session);
    if (s) {
      s.lastUsedMs = now;
      // Most recently used last (a delete and set per call keeps the order without a second
      // structure); a hook call asks for its session several times in a row, and only the first
      // moves it.
      if (this.lastUsed !== session) {
        this.sessions.delete(session);
        this.sessions.set(session, s);
        this.lastUsed = session;
      }
      return s;
    }
    s = {
      seq: this.options.resumeSeq?.(session) ?? 0,
      mapping: INITIAL_MAPPING_STATE,
      causes: new Map(),
      source: sessionSource(this.vendor, session),
      lastUsedMs: now,
    };
    this.sessions.set(session, s);
    this.lastUsed = session;
    const max = this.options.maxSessions ?? MAX_TRACKED_SESSIONS;
    while (this.sessions.size > max) this.forget(this.sessions.keys().next().value as string);
    return s;
  }
}
