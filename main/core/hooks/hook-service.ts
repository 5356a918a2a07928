/**
 * One hook call, end to end: parse the vendor payload, track the session, map and emit the AEP
 * events, then build the reply: a held permission decision, steering for an eligible moment, or
 * nothing. An internal error never blocks the agent: it is logged and audited, and the reply is empty.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { DOCTOR_SESSION, type VendorId } from '../../../common/vendors';
import type { Logger } from '../logger';
import type { Handover, SteeringEngine } from '../steering/steering-engine';
import type { PermissionLoop } from '../steering/permission-loop';
import type { AuditSink, HangUp } from '../steering/steering-types';
import type { SessionTracker } from './session-tracker';
import { sessionSource, type VendorEmitter } from '../steering/vendor-emitter';
import type { HookCall, HookReply, MappedEvent, MappingContext, VendorAdapter } from '../vendors/types';
import type { SessionRegistry } from '../sessions/registry';

/**
 * The fallback session of hook calls whose session could not be confirmed (a Hermes approval hook
 * naming a `session_key` never seen as a session id): a gateway key must never mint a session.
 */
export const UNKNOWN_SESSION = 'unknown';

/** The opt-ins a hook call carries (query `instruct=1`, `permissions=1`). */
export interface HookOptIns {
  readonly instruct: boolean;
  readonly permissions: boolean;
}

/** What the HTTP layer sends back: the vendor reply, or a 400 for a payload that is not a hook call. */
export type HookOutcome =
  /** `handover`: instructions the reply carries; the HTTP layer settles it once the reply was written (or not). */
  | { readonly status: 200; readonly body: HookReply; readonly handover?: Handover }
  | { readonly status: 400; readonly body: { readonly error: 'invalid-payload'; readonly detail: string } };

/** What the service is built from. */
export interface HookServiceDeps {
  readonly tracker: SessionTracker;
  readonly engine: SteeringEngine;
  readonly permissions: PermissionLoop;
  readonly emitter: (vendor: VendorId) => VendorEmitter;
  readonly adapter: (vendor: VendorId) => VendorAdapter;
  /** The mapping context for a call (capture policy, redaction, run ids), given whether its permission loop is on. */
  readonly mappingContext: (permissionLoop: boolean) => MappingContext;
  readonly audit: AuditSink;
  readonly logger: Logger;
  /**
   * Told of every handled call after its events are stamped (the transcript tailer reads later),
   * with the run open before the call was mapped (else the one it opened): what the transcript
   * says up to this call belongs to that run, even when the call ended it.
   */
  readonly observed?: (vendor: VendorId, call: HookCall, run: string | null) => void;
  /**
   * The session registry: a session another source owns (one the companion launched) gets this
   * call's facts merged into its stream; the hook then claims nothing, holds no permission request
   * (the vendor goes on to its own prompt, which the owner raises and answers) and carries no
   * steering (the owner's input is the one route). A session the record says another source owns
   * while none owns it live (after a restart) is not claimed: its events go out, nothing is held.
   * While a launch of the vendor is under way, a hook of such a session waits for it (a resume).
   */
  readonly registry?: SessionRegistry;
}

/** What `start` leaves a call's handling with. */
interface Started {
  readonly emitter: VendorEmitter;
  readonly row: ReturnType<SessionTracker['sighted']>;
  readonly loopOn: boolean;
  readonly context: MappingContext;
  readonly ends: boolean;
  readonly events: AepEvent[];
  /** The call's mapped events when another source owns the session (`events` is then empty). */
  readonly enriching: readonly MappedEvent[] | null;
}

/** Handles hook calls for every vendor. */
export class HookService {
  private readonly running = new Set<Promise<unknown>>();

  constructor(private readonly deps: HookServiceDeps) {}

  /** Handles one hook call and resolves with the reply for the vendor; `hangUp` tells when the vendor gave up on it. */
  handle(vendor: VendorId, payload: unknown, optIns: HookOptIns, hangUp?: HangUp): Promise<HookOutcome> {
    // The call itself is what the caller waits for (no async wrapper around it: one link less per hook).
    return this.track(this.handleCall(vendor, payload, optIns, hangUp));
  }

  /** Keeps `run` in `running` until it settles (it leaves before its caller hears); returns it. */
  private track<T>(run: Promise<T>): Promise<T> {
    this.running.add(run);
    const done = (): void => {
      this.running.delete(run);
    };
    run.then(done, done);
    return run;
  }

  /** Resolves once no hook call is being handled (shutdown: before the emitters close). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running]);
  }

  /**
   * A call's handling up to its events: the session sighted,
   * the call mapped and its events stamped, a session's end settled first. Throws what a step threw.
   */
  private start(vendor: VendorId, confirmed: { call: HookCall; fallback: boolean }, optIns: HookOptIns): Started {
    const { tracker, engine, permissions } = this.deps;
    const adapter = this.deps.adapter(vendor);
    const { call, fallback: unknownLane } = confirmed;
    const emitter = this.deps.emitter(vendor);
    const profile = adapter.profile;
    const registry = this.deps.registry;
    if (registry !== undefined && !unknownLane && !registry.knows(call.session, 'hooks')) registry.sighted({ session: call.session, kind: 'hooks', agent: vendor, source: sessionSource(vendor, call.session) });
    const owned = registry?.owner(call.session) !== undefined;
    let row = tracker.sighted({
      vendor,
      session: call.session,
      moment: call.moment,
      cwd: call.cwd ?? null,
      // The fallback lane is no agent session: nothing can be steered or answered there.
      instruct: optIns.instruct && !unknownLane,
      permissions: optIns.permissions && !unknownLane,
    });
    const loopOn = row.permissionsOptIn && profile.permissionMoments.length > 0;
    const context = this.deps.mappingContext(loopOn);
    const before = emitter.mappingState(call.session);
    const outcome = adapter.map(call, before, context);
    emitter.setMappingState(call.session, outcome.state);
    if (row.state === 'ended' && outcome.events.some((e) => e.type === 'session.started')) row = tracker.revived(row);

    const ends = adapter.endsSession(call);
    // Drops are settled before the end is emitted, so they precede `session.ended` on the stream.
    if (ends) {
      permissions.dismissSession(vendor, call.session);
      engine.sessionEnded(vendor, call.session);
    }
    if (owned) {
      // The transcript's facts reach the owner's stream too (transcripts/transcript-feed.ts enriches).
      if (!unknownLane) this.deps.observed?.(vendor, call, before.run ?? outcome.state.run);
      return { emitter, row, loopOn, context, ends, events: [], enriching: outcome.events };
    }
    // A hook the permission loop will hold carries the moment the hold gives up (`expires_at`).
    const held = loopOn && adapter.isHeld(call) && profile.permissionMoments.includes(call.moment) && row.state !== 'ended';
    const events = emitter.stampMapped(call.session, held ? permissions.withDeadline(outcome.events) : outcome.events);
    if (!unknownLane) this.deps.observed?.(vendor, call, before.run ?? outcome.state.run);
    return { emitter, row, loopOn, context, ends, events, enriching: null };
  }

  /** Sends what `start` left: the call's own events, or its facts merged into the owner's stream. */
  private sendStarted(session: string, started: Started): Promise<void> {
    if (started.enriching === null || this.deps.registry === undefined) return started.emitter.send(started.events);
    return this.deps.registry.enrich(session, started.enriching).then(() => undefined);
  }

  /**
   * Waits, for a session the hooks do not know yet, while a launch of the same agent is under way
   * (it may be that launch's session, whose owner must speak first); null when there is nothing to wait for.
   */
  private launchSettled(vendor: VendorId, call: HookCall): Promise<void> | null {
    const registry = this.deps.registry;
    if (registry === undefined) return null;
    const pending = registry.whenLaunched(vendor);
    if (pending === null || registry.owner(call.session) !== undefined) return null;
    // A known session waits too when the record says another source owns it (a launched session being resumed).
    if (this.deps.tracker.known(vendor, call.session) && !registry.ownedElsewhere(call.session, sessionSource(vendor, call.session))) return null;
    return pending;
  }

  private async handleCall(vendor: VendorId, payload: unknown, optIns: HookOptIns, hangUp?: HangUp): Promise<HookOutcome> {
    const adapter = this.deps.adapter(vendor);
    const parsed = adapter.parse(payload);
    if (!parsed.ok) return { status: 400, body: { error: 'invalid-payload', detail: parsed.error.message } };
    const empty: HookOutcome = { status: 200, body: adapter.emptyReply() };
    // Doctor's synthetic hook proves the route answers; it is no agent session and is never listed.
    if (parsed.value.session === DOCTOR_SESSION) return empty;
    let call = parsed.value;
    try {
      const { tracker, engine, permissions } = this.deps;
      const confirmed = this.confirmSession(call);
      call = confirmed.call;
      const launching = this.launchSettled(vendor, call);
      if (launching !== null) await launching;
      const profile = adapter.profile;
      const started = this.start(vendor, confirmed, optIns);
      const { row, loopOn, context, ends, events } = started;
      // Durable before the reply: the vendor hears back only once its events are committed. The
      // store group-commits every admit of one event-loop turn, so this costs at most one turn.
      await this.sendStarted(call.session, started);
      if (ends) {
        tracker.ended(vendor, call.session);
        return empty;
      }
      // Another source owns the session (live, or by the record with none live: the hooks hold no
      // claim then, so nothing could answer a held request or queue steering): the vendor goes on
      // as if no hook had answered.
      if (started.enriching !== null || this.deps.registry?.ownedElsewhere(call.session, sessionSource(vendor, call.session)) === true) return empty;

      if (adapter.isHeld(call, loopOn)) {
        const request = events.find((e) => e.type === 'attention.requested');
        if (!loopOn || !request || !profile.permissionMoments.includes(call.moment) || row.state === 'ended') return empty;
        return { status: 200, body: await permissions.hold(vendor, sessionSource(vendor, call.session), call, request, context, hangUp) };
      }

      // A vendor that already hung up would never read the reply: nothing is handed over then.
      if (row.instructOptIn && row.state !== 'ended' && adapter.acceptsSteering(call, loopOn) && !hangUp?.happened) {
        const handover = engine.deliver(vendor, call.session, call.moment);
        if (handover !== null) {
          const reply = adapter.steeringReply(call, handover.text, loopOn);
          if (reply.ok) return { status: 200, body: reply.value, handover };
          // Nothing was written: the instructions are settled as such, never reported delivered.
          void handover.settle(false);
          this.deps.logger.error('steering reply could not be built after delivery', { vendor, moment: call.moment, error: reply.error.message });
        }
      }
      return empty;
    } catch (error) {
      this.failed(vendor, call.session, call.moment, error);
      return empty;
    }
  }

  /**
   * A call whose session is unconfirmed keeps it only when the sessions table already knows that
   * session; otherwise it goes to the `unknown` fallback session, and the log says why.
   */
  private confirmSession(call: HookCall): { call: HookCall; fallback: boolean } {
    if (call.sessionUnconfirmed !== true || this.deps.tracker.known(call.vendor, call.session)) return { call, fallback: false };
    this.deps.logger.info('hook names an unconfirmed session key that is no known session: its events go to the fallback session', {
      vendor: call.vendor,
      moment: call.moment,
      fallback: UNKNOWN_SESSION,
    });
    return { call: { ...call, session: UNKNOWN_SESSION }, fallback: true };
  }

  /** Logs and audits an internal failure; the caller still answers the vendor. */
  failed(vendor: VendorId, session: string | null, moment: string | null, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.deps.logger.error('hook handling failed', { vendor, session, moment, error: message });
    this.deps.audit({
      actor: vendor,
      surface: 'hook',
      action: 'hook.error',
      session,
      commandId: null,
      outcome: 'error',
      detail: { moment, error: message },
    });
  }

}
