/**
 * One hook call, end to end: parse the vendor payload, track the session, map and emit the AEP
 * events, then build the reply: a held permission decision, steering for an eligible moment, or
 * nothing. An internal error never blocks the agent: it is logged and audited, and the reply is empty.
 */
import type { VendorId } from '../../../common/vendors';
import type { Logger } from '../logger';
import type { SteeringEngine } from '../steering/steering-engine';
import type { PermissionLoop } from '../steering/permission-loop';
import type { AuditSink, HangUp } from '../steering/steering-types';
import type { SessionTracker } from './session-tracker';
import { sessionSource, type VendorEmitter } from './vendor-emitter';
import type { HookCall, HookReply, MappingContext, VendorAdapter } from './vendors/types';

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
  | { readonly status: 200; readonly body: HookReply }
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
}

/** Handles hook calls for every vendor. */
export class HookService {
  constructor(private readonly deps: HookServiceDeps) {}

  /** Handles one hook call and resolves with the reply for the vendor; `hangUp` tells when the vendor gave up on it. */
  async handle(vendor: VendorId, payload: unknown, optIns: HookOptIns, hangUp?: HangUp): Promise<HookOutcome> {
    const adapter = this.deps.adapter(vendor);
    const parsed = adapter.parse(payload);
    if (!parsed.ok) return { status: 400, body: { error: 'invalid-payload', detail: parsed.error.message } };
    const empty: HookOutcome = { status: 200, body: adapter.emptyReply() };
    let call = parsed.value;
    try {
      const { tracker, engine, permissions } = this.deps;
      const confirmed = this.confirmSession(call);
      call = confirmed.call;
      const unknownLane = confirmed.fallback;
      const emitter = this.deps.emitter(vendor);
      const profile = adapter.profile;
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
      const outcome = adapter.map(call, emitter.mappingState(call.session), context);
      emitter.setMappingState(call.session, outcome.state);
      if (row.state === 'ended' && outcome.events.some((e) => e.type === 'session.started')) row = tracker.revived(row);

      const ends = adapter.endsSession(call);
      // Drops are settled before the end is emitted, so they precede `session.ended` on the stream.
      if (ends) {
        permissions.dismissSession(vendor, call.session);
        engine.sessionEnded(vendor, call.session);
      }
      const events = emitter.stampMapped(call.session, outcome.events);
      this.sendLogged(emitter, events, vendor, call.session);
      if (ends) {
        tracker.ended(vendor, call.session);
        return empty;
      }

      if (adapter.isHeld(call)) {
        const request = events.find((e) => e.type === 'attention.requested');
        if (!loopOn || !request || !profile.permissionMoments.includes(call.moment) || row.state === 'ended') return empty;
        return { status: 200, body: await permissions.hold(vendor, sessionSource(vendor, call.session), call, request, context, hangUp) };
      }

      // A vendor that already hung up would never read the reply: nothing is handed over then.
      if (row.instructOptIn && row.state !== 'ended' && adapter.acceptsSteering(call) && !hangUp?.happened) {
        const text = engine.deliver(vendor, call.session, call.moment);
        if (text !== null) {
          const reply = adapter.steeringReply(call, text);
          if (reply.ok) return { status: 200, body: reply.value };
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

  private sendLogged(emitter: VendorEmitter, events: Parameters<VendorEmitter['send']>[0], vendor: VendorId, session: string): void {
    // Not awaited: the reply must not wait for the commit; the link keeps the order of sends.
    emitter.send(events).catch((error: unknown) => this.failed(vendor, session, null, error));
  }
}
