/**
 * One launched agent's in-process emitter (`relay.attachEmitter`, agent = the catalogue id): owns
 * `seq` per session (epoch from EpochsRepo, so a restart starts a new one), resolves the mapping's
 * cause hints to event ids, and declares per session the verbs it accepts. It implements the
 * steering `VendorChannel` so the recorded-ack machinery (ControlAcks) works unchanged.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { ControlCapability } from '../../../common/aep/frames';
import type { MappedEvent } from '../vendors/types';
import type { EmitterLink } from '../relay/emitter-link';
import type { Clock, EventDraft, VendorChannel } from '../steering/steering-types';
import { rememberKey, stampDraft, type StampFrame } from '../steering/emitter-stamp';

/** The ack window declared for launched sessions (acks are decided synchronously). */
export const LAUNCHED_ACK_WINDOW_MS = 10_000;
const MAX_CAUSE_KEYS = 2_000;

/** The source URI of a launched session. */
export const launchedSource = (agent: string, session: string): string =>
  `aep://localhost/agent/${agent}/launched/${encodeURIComponent(session)}`;

interface Seq {
  seq: number;
  readonly causes: Map<string, string>;
}

/** The emitter of one agent's launched sessions. */
export class AgentEmitter implements VendorChannel {
  private readonly sessions = new Map<string, Seq>();
  private readonly tails = new Map<string, Promise<unknown>>();

  constructor(
    readonly agent: string,
    private readonly link: EmitterLink,
    readonly epoch: number,
    private readonly clock: Clock,
    private readonly newId: () => string,
  ) {}

  /** Stamps mapped events, resolving cause hints (explicit `cause` wins) and remembering keys. */
  stampMapped(session: string, events: readonly (MappedEvent & { cause?: string })[]): AepEvent[] {
    const s = this.seqOf(session);
    const frame = this.frame(session);
    return events.map((e) => {
      const cause = e.cause ?? (e.causeHint ? s.causes.get(`${e.causeHint.type}\u0000${e.causeHint.key}`) : undefined);
      const draft: EventDraft = { type: e.type, subject: e.subject, run: e.run, severity: e.severity, capture: e.capture, data: e.data, cause };
      const stamped = stampDraft(frame, draft, this.newId(), (s.seq += 1));
      if (e.key !== undefined) rememberKey(s.causes, `${e.type}\u0000${e.key}`, stamped.id, MAX_CAUSE_KEYS);
      return stamped;
    });
  }

  stamp(session: string, drafts: readonly EventDraft[]): AepEvent[] {
    const s = this.seqOf(session);
    const frame = this.frame(session);
    return drafts.map((d) => stampDraft(frame, d, this.newId(), (s.seq += 1)));
  }

  private frame(session: string): StampFrame {
    return { agent: this.agent, source: launchedSource(this.agent, session), session, epoch: this.epoch, time: new Date(this.clock()).toISOString() };
  }

  /**
   * Sends stamped events. Sends of one session go out one after the other in call order, so
   * subscribers see a session's positions in order whichever part stamped them (acks, mapped
   * updates, answers). Resolves after commit; rejects when the relay refused them.
   */
  send(events: readonly AepEvent[]): Promise<void> {
    if (events.length === 0) return Promise.resolve();
    const session = typeof events[0].session === 'string' ? events[0].session : '';
    const tail = this.tails.get(session) ?? Promise.resolve();
    const next = tail.then(() => this.link.emit(events));
    const settled = next.catch(() => undefined);
    this.tails.set(session, settled);
    void settled.then(() => {
      if (this.tails.get(session) === settled) this.tails.delete(session);
    });
    return next;
  }

  /** Claims the session with exactly these verbs (the roster shows them; claiming again replaces them). */
  declare(session: string, accepts: readonly string[]): void {
    const control: ControlCapability = { accepts: [...accepts], ack_window_ms: LAUNCHED_ACK_WINDOW_MS };
    this.link.claim(session, control);
  }

  /** Releases the claim (the seq counter stays: later events never reuse a position). */
  release(session: string): void {
    this.link.release(session);
    this.sessions.get(session)?.causes.clear();
  }

  onCommand(handler: (command: AepEvent) => Promise<void>): () => void {
    return this.link.onCommand((command) => handler(command));
  }

  close(): void {
    this.link.close();
  }

  private seqOf(session: string): Seq {
    let s = this.sessions.get(session);
    if (!s) this.sessions.set(session, (s = { seq: 0, causes: new Map() }));
    return s;
  }
}
