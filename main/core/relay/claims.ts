/**
 * Live session claims (AEP-0003 §4.1, AEP-0004 §4): which emitter connections (WS or in-process)
 * currently own which session, with the declarations they made. Routing and the roster both read
 * it; it never merges claims or elects one.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { ControlCapability, RosterEntry } from '../../../common/aep/frames';

/** Sessions remembered per rule (companion-owned, introducer) before the oldest are forgotten. */
export const MAX_REMEMBERED_SESSIONS = 100_000;

/** An emitter party that can claim sessions and receive commands. */
export interface Claimant {
  /** True for the companion's own in-process adapters: their sessions are never claimable from outside. */
  readonly internal?: boolean;
  /**
   * True for an in-process adapter that owns control of its sessions (the launch host): among the
   * companion's own adapters it alone holds a session it claims; one that only enriches a session
   * (the hooks of a launched agent) never holds it beside it (sessions/registry.ts).
   */
  readonly owns?: boolean;
  readonly agent: string | undefined;
  readonly instance: string | undefined;
  readonly emits: readonly string[] | undefined;
  /** The control declaration in force for a claimed session (absent when none was declared). */
  control(session: string): ControlCapability | undefined;
  /** Hands a routed command over, byte-identical. */
  deliverCommand(event: AepEvent, json: string): void;
}

/** Adds `key` to a bounded insertion-ordered map, forgetting the oldest entry past the bound. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > MAX_REMEMBERED_SESSIONS) map.delete(map.keys().next().value as string);
}

/**
 * The claim set of one relay. Outside emitters (WS connections, any token) claim under a rule: a
 * session the companion's own adapters emitted or claimed is theirs alone (an internal claim even
 * evicts outside claimants), and an outside emitter may only claim a session it introduced: the
 * `source` of the first event the relay saw in that session must be its own. Among the companion's
 * own adapters, one that owns control (`owns`) holds the session alone: the companion seeing one
 * session twice is never two routes.
 */
export class ClaimRegistry {
  private readonly bySession = new Map<string, Set<Claimant>>();
  private readonly byClaimant = new Map<Claimant, Set<string>>();
  /** Sessions the companion's in-process adapters emitted into or claimed. */
  private readonly companion = new Map<string, true>();
  /** The source that introduced each session seen from outside. */
  private readonly introducers = new Map<string, string>();

  /** Records that an in-process adapter emitted into `session`. */
  markCompanion(session: string): void {
    if (!this.companion.has(session)) remember(this.companion, session, true);
  }

  /** Records the first source seen in `session` (any binding); later sources do not replace it. */
  noteSource(session: string, source: string): void {
    if (!this.companion.has(session) && !this.introducers.has(session))
      remember(this.introducers, session, source);
  }

  /**
   * Claims `session` for an outside emitter whose event carries `source`; returns the refusal text
   * when the rule forbids it (the caller refuses the event too).
   */
  claimFromOutside(session: string, source: string, claimant: Claimant): string | undefined {
    if (this.companion.has(session))
      return `session ${session} belongs to one of the companion's own adapters; an outside emitter cannot claim it`;
    const introducer = this.introducers.get(session);
    if (introducer !== undefined && introducer !== source)
      return `session ${session} was introduced by another emitter; an emitter may only claim sessions it introduced (source ${introducer})`;
    if (introducer === undefined) remember(this.introducers, session, source);
    this.claim(session, claimant);
    return undefined;
  }

  /** Records that `claimant` owns `session` (idempotent). */
  claim(session: string, claimant: Claimant): void {
    if (claimant.internal === true) {
      this.markCompanion(session);
      this.introducers.delete(session);
      const others = this.claimants(session).filter((other) => other !== claimant);
      // An enriching adapter never claims beside an owning one; an owning one takes the session.
      if (claimant.owns !== true && others.some((other) => other.internal === true && other.owns === true)) return;
      for (const other of others)
        if (other.internal !== true || (claimant.owns === true && other.owns !== true)) this.release(session, other);
    }
    let set = this.bySession.get(session);
    if (!set) this.bySession.set(session, (set = new Set()));
    set.add(claimant);
    let sessions = this.byClaimant.get(claimant);
    if (!sessions) this.byClaimant.set(claimant, (sessions = new Set()));
    sessions.add(session);
  }

  /** True when `claimant` currently claims `session`. */
  has(session: string, claimant: Claimant): boolean {
    return this.bySession.get(session)?.has(claimant) ?? false;
  }

  /** Drops one claim. */
  release(session: string, claimant: Claimant): void {
    const set = this.bySession.get(session);
    if (set) {
      set.delete(claimant);
      if (set.size === 0) this.bySession.delete(session);
    }
    const sessions = this.byClaimant.get(claimant);
    if (sessions) {
      sessions.delete(session);
      if (sessions.size === 0) this.byClaimant.delete(claimant);
    }
  }

  /** Drops every claim of a claimant (its connection closed). */
  releaseAll(claimant: Claimant): void {
    for (const session of [...(this.byClaimant.get(claimant) ?? [])])
      this.release(session, claimant);
  }

  /** The live claimants of a session. */
  claimants(session: string): Claimant[] {
    return [...(this.bySession.get(session) ?? [])];
  }

  /** One roster entry per live (claimant, session) pair, declarations verbatim. */
  roster(): RosterEntry[] {
    const entries: RosterEntry[] = [];
    for (const [session, set] of this.bySession) {
      for (const c of set) {
        const control = c.control(session);
        entries.push({
          session,
          ...(c.agent !== undefined ? { agent: c.agent } : {}),
          ...(c.instance !== undefined ? { instance: c.instance } : {}),
          ...(control !== undefined ? { control } : {}),
          ...(c.emits !== undefined ? { emits: c.emits } : {}),
        });
      }
    }
    return entries;
  }

  /** How many sessions are claimed. */
  get sessionCount(): number {
    return this.bySession.size;
  }
}
