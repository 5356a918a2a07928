/**
 * Session tracking for the hook endpoint: the sessions table row per vendor session, and the live
 * declaration each session makes through its vendor's emitter. The instruct verb is declared only
 * for sessions whose hooks carry the opt-in and only while steering is on; the permission verb only
 * for sessions with the permission opt-in on a vendor with an answerable moment.
 */
import { instructType, type VendorId } from '../../../common/vendors';
import type { SessionRow, SessionsRepo } from '../store/sessions-repo';
import type { Clock } from '../steering/steering-types';
import { sessionSource, type VendorEmitter } from '../steering/vendor-emitter';
import type { VendorAdapter } from '../vendors/types';

/** What the tracker is built from. */
export interface SessionTrackerDeps {
  readonly sessions: SessionsRepo;
  readonly emitter: (vendor: VendorId) => VendorEmitter;
  readonly adapter: (vendor: VendorId) => VendorAdapter;
  readonly steeringEnabled: () => boolean;
  readonly idleExpiryMs: () => number;
  readonly clock: Clock;
  /**
   * The steering verbs of a session of a vendor steered otherwise than by `instruct` (Cline: the
   * hub's verbs, only while it is reachable), or undefined for the vendor's instruct verb.
   */
  readonly steeringVerbs?: (vendor: VendorId, session: string) => readonly string[] | undefined;
  /** The vendors whose emitters the idle sweep trims (the daemon passes all). */
  readonly vendors?: readonly VendorId[];
  /**
   * True when a source emitting under another source URI owns control of the session
   * (sessions/registry.ts: a session the companion launched, live or by the record): the hooks then
   * never claim it. An owner on the vendor's own emitter (the Cline hub) shares the hooks' claim.
   */
  readonly ownedElsewhere?: (vendor: VendorId, session: string) => boolean;
}

/** One hook call's facts about its session. */
export interface HookSighting {
  readonly vendor: VendorId;
  readonly session: string;
  readonly moment: string;
  readonly cwd: string | null;
  readonly instruct: boolean;
  readonly permissions: boolean;
}

/** Keeps the sessions table and the emitters' claims in step with the hooks. */
export class SessionTracker {
  constructor(private readonly deps: SessionTrackerDeps) {}

  /** Records a hook call and (re)declares the session; returns the row after it. */
  sighted(h: HookSighting): SessionRow {
    const { sessions } = this.deps;
    const source = sessionSource(h.vendor, h.session);
    const { after } = sessions.touch({
      source,
      session: h.session,
      agent: h.vendor,
      vendor: h.vendor,
      cwd: h.cwd,
      hook: h.moment,
      instructOptIn: h.instruct,
      permissionsOptIn: h.permissions,
      nowMs: this.deps.clock(),
    });
    if (after.state !== 'ended') this.declare(after);
    return after;
  }

  /** True when this vendor session opted in to steering or the permission loop (either sticks to the session). */
  optedIn(vendor: VendorId, session: string): boolean {
    const row = this.deps.sessions.cached(sessionSource(vendor, session), session);
    return row !== null && (row.instructOptIn || row.permissionsOptIn);
  }

  /** True when the sessions table already has this vendor session (any state). */
  known(vendor: VendorId, session: string): boolean {
    return this.deps.sessions.get(sessionSource(vendor, session), session) !== null;
  }

  /** An ended session started again (a resumed conversation keeps its id): it is live and declared again. */
  revived(row: SessionRow): SessionRow {
    this.deps.sessions.setState(row.source, row.session, 'active');
    const live: SessionRow = { ...row, state: 'active' };
    this.declare(live);
    return live;
  }

  /** The session ended: its state is recorded and its claim released (it leaves the roster). */
  ended(vendor: VendorId, session: string): void {
    this.deps.sessions.setState(sessionSource(vendor, session), session, 'ended');
    this.deps.emitter(vendor).release(session);
  }

  /** Re-declares every claimed session (the kill switch flipped): the verb appears or leaves at once. */
  redeclareAll(): void {
    for (const row of this.deps.sessions.live()) {
      if (row.vendor === null) continue;
      if (!this.deps.emitter(row.vendor).claimed().includes(row.session)) continue;
      this.declare(row);
    }
  }

  /**
   * Marks sessions idle after the idle expiry without hooks, and lets go of their claim and
   * in-memory state, whatever the vendor: some never announce an end, and those that do skip it in
   * some modes (their queue is dropped by the steering engine's own sweep). A hook that comes back
   * makes the session active and declared again. Ended sessions' state goes at the same age.
   */
  sweepIdle(): number {
    const before = this.deps.clock() - this.deps.idleExpiryMs();
    const stale = this.deps.sessions.staleActive(before);
    for (const row of stale) {
      this.deps.sessions.setState(row.source, row.session, 'idle');
      if (row.vendor !== null) this.deps.emitter(row.vendor).forget(row.session);
    }
    for (const vendor of this.deps.vendors ?? []) this.deps.emitter(vendor).forgetIdle(before);
    return stale.length;
  }

  /** After a restart: claims again the sessions that were live within the idle expiry. */
  restore(): number {
    const since = this.deps.clock() - this.deps.idleExpiryMs();
    let restored = 0;
    for (const row of this.deps.sessions.live()) {
      if (row.vendor === null || row.state !== 'active' || row.lastSeenMs < since) continue;
      this.declare(row);
      restored += 1;
    }
    return restored;
  }

  /** Another source took control of the session: its claim is given up (the row and positions stay). */
  yielded(vendor: VendorId, session: string): void {
    this.deps.emitter(vendor).yieldClaim(session);
  }

  private declare(row: SessionRow): void {
    if (row.vendor === null) return;
    if (this.deps.ownedElsewhere?.(row.vendor, row.session) === true) {
      this.deps.emitter(row.vendor).yieldClaim(row.session);
      return;
    }
    const profile = this.deps.adapter(row.vendor).profile;
    this.deps.emitter(row.vendor).declare(
      row.session,
      {
        instruct: row.instructOptIn && this.deps.steeringEnabled(),
        permissions: row.permissionsOptIn && profile.permissionMoments.length > 0,
      },
      this.deps.steeringVerbs?.(row.vendor, row.session) ?? instructType(row.vendor),
    );
  }
}
