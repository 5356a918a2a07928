/**
 * The relay's live roster (AEP-0003 §6.5): which emitter claims which session right now, and
 * which control verbs it declared for it. Steerability is read from here, never guessed from a
 * session's vendor or opt-ins: a session released at idle expiry leaves the roster, and the
 * relay would answer an instruction with `no-route`.
 */
import type { ControlCapability, ErrorFrame, RosterEntry, RosterFrame } from '../../../common/aep/frames';

/** Where the roster stands. */
export type RosterPhase = 'unknown' | 'loaded' | 'refused';

/** The roster as last answered. */
export class RosterState {
  phase: RosterPhase = 'unknown';
  error: string | null = null;
  private entries = new Map<string, RosterEntry[]>();
  private asked = new Set<string>();
  private counter = 0;
  private soonTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly request: (id: string) => boolean,
    private readonly changed: () => void,
  ) {}

  /** Asks the relay now (no-op while disconnected). */
  ask(): void {
    const id = `roster-${++this.counter}`;
    if (this.request(id)) this.asked.add(id);
  }

  /** Asks within 300 ms (coalesced): after session changes and kill-switch flips. */
  askSoon(): void {
    if (this.soonTimer) return;
    this.soonTimer = setTimeout(() => {
      this.soonTimer = null;
      this.ask();
    }, 300);
  }

  /** True for the ids of our roster requests (their refusals are ours). */
  owns(id: string): boolean {
    return this.asked.has(id);
  }

  /** Adopts an answer. */
  onFrame(frame: RosterFrame): void {
    this.asked.delete(frame.id);
    this.entries = new Map();
    for (const e of frame.entries ?? []) {
      if (!e || typeof e.session !== 'string') continue;
      const list = this.entries.get(e.session) ?? [];
      list.push(e);
      this.entries.set(e.session, list);
    }
    this.phase = 'loaded';
    this.error = null;
    this.changed();
  }

  /** A roster request was refused in-band. */
  onError(frame: ErrorFrame): void {
    if (frame.id) this.asked.delete(frame.id);
    this.phase = 'refused';
    this.error = `${frame.code}${frame.detail ? `: ${frame.detail}` : ''}`;
    this.changed();
  }

  /** The connection dropped: what we knew may be stale. */
  disconnected(): void {
    this.asked.clear();
    if (this.phase === 'loaded') {
      this.phase = 'unknown';
      this.changed();
    }
  }

  stop(): void {
    if (this.soonTimer) clearTimeout(this.soonTimer);
    this.soonTimer = null;
  }

  /** The session's claim, or null when no emitter claims it now. */
  claim(session: string): RosterEntry | null {
    return this.entries.get(session)?.[0] ?? null;
  }

  /** Every verb some claimant of the session accepts now. */
  accepts(session: string): readonly string[] {
    return (this.entries.get(session) ?? []).flatMap((e) => (e.control as ControlCapability | undefined)?.accepts ?? []);
  }

  /** True when the session is in the roster at all. */
  has(session: string): boolean {
    return this.entries.has(session);
  }

  /** Sessions in the roster (tests, diagnostics). */
  get size(): number {
    return this.entries.size;
  }
}
