/**
 * The Cline hub tap and its control verbs, composed for the hooks feature. Opt-in: the hub client
 * starts only once a Cline session whose hooks carry the steering opt-in (`install --instruct`) is
 * seen, and never without a discovery path from the host. A session declares the Cline verbs only
 * while it is opted in, steering is on, the hub is connected and knows the session (a `--data-dir`
 * run never reaches the hub). The hub being absent, refusing us or speaking another protocol
 * degrades to hooks only, visibly: a log line, an `x.cline.hub.status` event in each live opted-in
 * session, and the verbs withdrawn from the roster.
 */
import type { AepEvent } from '../../../../../common/aep/envelope';
import type { Logger } from '../../../logger';
import type { SessionsRepo } from '../../../store/sessions-repo';
import type { ControlAcks } from '../../../steering/control-acks';
import type { AuditSink, DurableLog } from '../../../steering/steering-types';
import { sessionSource, type VendorEmitter } from '../../../steering/vendor-emitter';
import { mapped } from '../../event-builders';
import type { MappingContext } from '../../types';
import { HubClient, type HubClientOptions, type HubStatus } from './hub-client';
import { CLINE_VERBS, HubControl } from './hub-control';
import { HubTap } from './hub-tap';

export interface ClineHubDeps {
  /** `~/.cline/data/locks/hub/production.json` as the host resolved it; null: no hub tap. */
  readonly discoveryPath: string | null;
  readonly emitter: VendorEmitter;
  readonly acks: ControlAcks;
  readonly audit: AuditSink;
  readonly durable: DurableLog;
  readonly logger: Logger;
  readonly sessions: SessionsRepo;
  readonly context: () => MappingContext;
  readonly steeringEnabled: () => boolean;
  /** Re-declares live sessions (the verbs appear or go). */
  readonly redeclare: () => void;
  /** Records that a session ended (its claim is released). */
  readonly sessionEnded: (session: string) => void;
  /**
   * The session registry as the hub reports to it (sessions/source.ts, wired by the hooks feature):
   * every session the hub names is sighted; the hub owns control of those it can act on (connected,
   * known to the hub, live and opted in) and lets go when it no longer can.
   */
  readonly registry?: {
    sighted(session: string): void;
    controls(session: string, yes: boolean): void;
  };
  /** Test seam: backoff and reply timeout of the client. */
  readonly client?: Partial<Pick<HubClientOptions, 'backoffMs' | 'replyTimeoutMs'>>;
}

/** The running tap. */
export class ClineHub {
  readonly tap: HubTap;
  readonly control: HubControl;
  private client: HubClient | null = null;
  private readonly probed = new Set<string>();
  /** The sessions the hub owns control of in the registry. */
  private readonly owned = new Set<string>();
  private closed = false;

  constructor(private readonly deps: ClineHubDeps) {
    this.tap = new HubTap({
      emitter: deps.emitter,
      context: deps.context,
      tracked: (id) => this.row(id)?.state !== undefined && this.row(id)?.state !== 'ended',
      answerable: (id) => this.verbs(id).length > 0,
      onKnown: (id) => {
        deps.registry?.sighted(id);
        this.sync(id);
        deps.redeclare();
      },
      send: (events) => this.send(events),
      ended: (id) => {
        const ended = mapped('session.ended', deps.context(), { reason: 'normal' });
        this.send(deps.emitter.stampMapped(id, [ended]));
        deps.sessionEnded(id);
      },
    });
    this.control = new HubControl({
      emitter: deps.emitter,
      acks: deps.acks,
      audit: deps.audit,
      durable: deps.durable,
      tap: this.tap,
      context: deps.context,
      blocked: (id) => this.blocked(id),
      request: (command, payload, sessionId) =>
        this.client
          ? this.client.request(command, payload, sessionId)
          : Promise.resolve({
              ok: false,
              code: 'hub_unavailable',
              message: 'the hub tap is not running',
            }),
    });
  }

  /** The hub status (`stopped` until an opted-in session is seen). */
  get status(): HubStatus {
    return this.client?.status ?? { state: 'stopped', reason: null, url: null };
  }

  /** The verbs the session declares now: the Cline verbs, or none. */
  verbs(session: string): readonly string[] {
    return this.blocked(session) === null ? CLINE_VERBS : [];
  }

  /** Why the session cannot be steered now, or null. */
  blocked(session: string): string | null {
    if (!this.deps.steeringEnabled()) return 'steering is off (the kill switch)';
    const row = this.row(session);
    if (!row || row.state === 'ended') return 'no live Cline session has this id';
    if (!row.instructOptIn)
      return 'this Cline session is not opted in to steering: reinstall the Cline hooks with --instruct';
    const status = this.status;
    if (status.state !== 'connected')
      return `the Cline hub is not reachable (${status.reason ?? status.state}): observed through hooks only`;
    if (!this.tap.session(session))
      return 'the Cline hub does not know this session (a --data-dir run is local): it cannot be steered';
    return null;
  }

  /** Sees every admitted event (relay.onAdmitted): Cline session sightings start the tap and end its sessions. */
  admitted(events: readonly AepEvent[]): void {
    for (const e of events) {
      if (
        e.agent !== 'cline' ||
        typeof e.session !== 'string' ||
        e.source !== sessionSource('cline', e.session)
      )
        continue;
      if (e.type === 'session.ended') {
        this.sync(e.session, false);
        const s = this.tap.session(e.session);
        for (const input of [...(s?.inputs ?? [])])
          this.tap.settle(e.session, s!, input, 'dropped', 'the session ended');
        continue;
      }
      // Any event of an opted-in session starts the tap (a session live across a daemon restart too).
      if (this.tap.session(e.session)) {
        if (!this.owned.has(e.session)) this.sync(e.session);
        continue;
      }
      if (this.probed.has(e.session)) continue;
      if (!this.row(e.session)?.instructOptIn) continue;
      this.ensureClient();
      if (this.client?.status.state === 'connected') void this.probe(e.session);
    }
  }

  /** Routes the Cline verbs; everything else goes to `fallback`. */
  route(fallback: (command: AepEvent) => Promise<void>): (command: AepEvent) => Promise<void> {
    return this.control.route(fallback);
  }

  /** Stops the client. */
  close(): void {
    this.closed = true;
    for (const session of [...this.owned]) this.sync(session, false);
    this.client?.stop();
    this.client = null;
  }

  private ensureClient(): void {
    if (this.client || this.closed) return;
    if (this.deps.discoveryPath === null) {
      this.deps.logger.info(
        'no Cline hub discovery path from the host: Cline sessions are observed through hooks only',
      );
      return;
    }
    this.client = new HubClient({
      discoveryPath: this.deps.discoveryPath,
      clientId: `aep-companion-${process.pid}`,
      logger: this.deps.logger,
      onEvent: (event) => this.tap.handle(event),
      onStatus: (status) => this.statusChanged(status),
      ...this.deps.client,
    });
    this.client.start();
  }

  /** Asks the hub about a session it has not named on the stream yet (it may predate our connection). */
  private async probe(session: string): Promise<void> {
    // Asked once per connection: a session the hub does not know (a --data-dir run) stays local.
    this.probed.add(session);
    const reply = await this.client?.request('session.get', { sessionId: session }, session);
    if (reply?.ok)
      this.tap.learn(
        session,
        (reply.payload.session ?? reply.payload.snapshot ?? reply.payload) as Record<
          string,
          unknown
        >,
      );
  }

  /**
   * Tells the registry whether the hub can act on the session now (`can`, else worked out: the hub
   * connected and knowing the session, the session live and opted in), when that changed.
   */
  private sync(session: string, can = this.canAct(session)): void {
    if (this.deps.registry === undefined || this.owned.has(session) === can) return;
    if (can) this.owned.add(session);
    else this.owned.delete(session);
    this.deps.registry.controls(session, can);
  }

  private canAct(session: string): boolean {
    const row = this.row(session);
    return !this.closed && this.status.state === 'connected' && this.tap.session(session) !== undefined && row !== null && row.state !== 'ended' && row.instructOptIn;
  }

  private statusChanged(status: HubStatus): void {
    if (status.state === 'connected') this.probed.clear();
    for (const session of [...this.owned]) this.sync(session);
    this.deps.redeclare();
    const live = this.deps.sessions
      .live()
      .filter((r) => r.vendor === 'cline' && r.instructOptIn && r.state !== 'ended');
    for (const row of live) {
      if (status.state === 'connected' && !this.tap.session(row.session))
        void this.probe(row.session);
      this.sync(row.session);
      if (status.state === 'connecting') continue;
      const data = { state: status.state === 'connected' ? 'connected' : 'hooks-only' };
      const event = mapped('x.cline.hub.status', this.deps.context(), data, {
        run: this.deps.emitter.mappingState(row.session).run,
        severity: status.state === 'connected' ? undefined : 'warning',
      });
      this.send(this.deps.emitter.stampMapped(row.session, [event]));
    }
  }

  private row(session: string) {
    return this.deps.sessions.get(sessionSource('cline', session), session);
  }

  private send(events: AepEvent[]): void {
    this.deps.emitter
      .send(events)
      .catch((error: unknown) =>
        this.deps.logger.error('emitting Cline hub events failed', { error: String(error) }),
      );
  }
}
