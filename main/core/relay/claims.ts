/**
 * Live session claims (AEP-0003 §4.1, AEP-0004 §4): which emitter connections (WS or in-process)
 * currently own which session, with the declarations they made. Routing and the roster both read
 * it; it never merges claims or elects one.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import type { ControlCapability, RosterEntry } from '../../../common/aep/frames';

/** An emitter party that can claim sessions and receive commands. */
export interface Claimant {
  readonly agent: string | undefined;
  readonly instance: string | undefined;
  readonly emits: readonly string[] | undefined;
  /** The control declaration in force for a claimed session (absent when none was declared). */
  control(session: string): ControlCapability | undefined;
  /** Hands a routed command over, byte-identical. */
  deliverCommand(event: AepEvent, json: string): void;
}

/** The claim set of one relay. */
export class ClaimRegistry {
  private readonly bySession = new Map<string, Set<Claimant>>();
  private readonly byClaimant = new Map<Claimant, Set<string>>();

  /** Records that `claimant` owns `session` (idempotent). */
  claim(session: string, claimant: Claimant): void {
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
