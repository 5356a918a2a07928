/**
 * The hooks feature (the observed transport): one in-process emitter per vendor, the hook routes,
 * session tracking, the steering engine, the permission loop, and the steering-related /api routes.
 * The kill switch, acks, durable log, audit sink and repositories come from the shared agent ports.
 */
import { isCommandType, type AepEvent } from '../../../common/aep/envelope';
import { isSyntheticHook, isVendorId, VENDORS, type VendorId } from '../../../common/vendors';
import { redact } from '../aep/redact';
import { ulid } from '../aep/ulid';
import { instructionsApi } from '../steering/instructions-api';
import { sessionsApi } from '../api/sessions-api';
import { steeringApi } from '../steering/steering-api';
import { vendorsApi } from '../vendors/vendors-api';
import type { DaemonContext, Disposer, Feature } from '../daemon-context';
import { createLogger } from '../logger';
import { EpochsRepo } from '../store/epochs-repo';
import { LegacyHooks } from '../store/legacy-upgrade';
import { openAttentionLookup } from '../store/open-attention';
import { sqlitePositions } from '../store/transcript-positions';
import { turnCommitOf } from '../store/turn-commit';
import { createTranscriptFeed } from '../transcripts/transcript-feed';
import { acquireAgentPorts } from '../steering/agent-ports';
import type { KillSwitch } from '../steering/kill-switch';
import { PermissionLoop, realScheduler, type Scheduler } from '../steering/permission-loop';
import { SteeringEngine } from '../steering/steering-engine';
import { provideInstructionQueue } from '../steering/instruction-queue';
import type { Clock } from '../steering/steering-types';
import { clineHubDiscoveryPath } from '../../../common/cline';
import { ClineHub, type ClineHubDeps } from '../vendors/cline/hub/cline-hub';
import type { SessionRegistry } from '../sessions/registry';
import type { OwnerPort } from '../sessions/source';
import { commandRouter } from './command-router';
import { hookRoute } from './hook-routes';
import { HookService } from './hook-service';
import { SessionTracker } from './session-tracker';
import { sessionSource, VendorEmitter } from '../steering/vendor-emitter';
import { vendorAdapter } from '../vendors/index';
import type { MappingContext } from '../vendors/types';
import { EMITTER_INSTANCE } from '../steering/vendor-emitter';

export { EMITTER_INSTANCE };


/** Test seams; the daemon uses the defaults. */
export interface HooksFeatureOptions {
  readonly clock?: Clock;
  readonly schedule?: Scheduler;
  /** How often idle sessions are swept (default: a quarter of the idle expiry, at most a minute); 0 disables the timer. */
  readonly sweepEveryMs?: number;
  /** Receives the running parts (tests drive the sweeps and read the engine). */
  readonly onReady?: (parts: HooksParts) => void;
}

/** The running parts of the feature. */
export interface HooksParts {
  readonly engine: SteeringEngine;
  readonly tracker: SessionTracker;
  readonly permissions: PermissionLoop;
  readonly killSwitch: KillSwitch;
  readonly service: HookService;
  readonly emitters: ReadonlyMap<VendorId, VendorEmitter>;
  /** Settles once the hook calls an earlier version answered and never handled are handled (store/legacy-upgrade.ts). */
  readonly upgraded: Promise<void>;
  /** Runs the idle sweeps now (what the timer does). */
  sweep(): void;
}

/** Builds the feature with the given seams. */
export function createHooksFeature(options: HooksFeatureOptions = {}): Feature {
  return (ctx: DaemonContext): Disposer => {
    const log = createLogger('hooks');
    // Kill switch, acks, durable log, audit sink and repositories: shared with the launched transport.
    // Their clock is the injected one when a test gives it (one daemon, one clock), else wall time.
    const lease = acquireAgentPorts(ctx, options.clock);
    const { clock: portsClock, audit, sessions, steeringRepo, acks, killSwitch, durable, registry } = lease.ports;
    const epochs = new EpochsRepo(ctx.db);
    // A call an earlier version answered and never handled is handled at the time it came.
    let takenAt: number | undefined;
    const clock = (): number => takenAt ?? portsClock();

    const emitters = new Map<VendorId, VendorEmitter>();
    for (const vendor of VENDORS) {
      const link = ctx.relay.attachEmitter({ agent: vendor, instance: EMITTER_INSTANCE, typed: true });
      const epoch = epochs.next(`${vendor}/${EMITTER_INSTANCE}`);
      // A session whose state was let go (idle, or the least recently used) resumes after its last stored seq.
      const resumeSeq = (session: string): number => ctx.eventStore.lastSeq(session, epoch, sessionSource(vendor, session));
      emitters.set(vendor, new VendorEmitter(vendor, link, epoch, clock, ulid, { resumeSeq }));
    }
    const emitter = (vendor: VendorId): VendorEmitter => emitters.get(vendor) as VendorEmitter;

    const engine = new SteeringEngine({
      repo: steeringRepo,
      sessions,
      acks,
      audit,
      clock,
      logger: createLogger('steering'),
      enabled: () => killSwitch.enabled,
      idleExpiryMs: () => ctx.settings.get('steering.idleExpiryMs'),
      profile: (vendor) => vendorAdapter(vendor).profile,
      channel: emitter,
      durable,
    });
    const permissions = new PermissionLoop({
      acks,
      audit,
      clock,
      logger: createLogger('permissions'),
      sessions,
      holdMs: () => ctx.settings.get('permissions.holdMs'),
      schedule: options.schedule ?? realScheduler,
      channel: emitter,
      adapter: vendorAdapter,
      durable,
      openRequests: openAttentionLookup(ctx.db),
    });
    const tracker = new SessionTracker({
      sessions,
      emitter,
      adapter: vendorAdapter,
      steeringEnabled: () => killSwitch.enabled,
      idleExpiryMs: () => ctx.settings.get('steering.idleExpiryMs'),
      clock,
      vendors: VENDORS,
      // Cline is steered through its hub: its verbs are declared only while the hub can carry them.
      steeringVerbs: (vendor, session) => (vendor === 'cline' ? clineHub.verbs(session) : undefined),
      ownedElsewhere: (vendor, session) => registry.ownedElsewhere(session, sessionSource(vendor, session)),
    });
    // The daemon's own tokens are always secret values (rule b), whatever the operator configured;
    // the options are built again only when a token rotates, not per redacted string.
    let redactOptions = { secretValues: [ctx.tokens.operator, ctx.tokens.hook] };
    const redactText = (text: string): string => {
      const [operator, hook] = redactOptions.secretValues;
      if (operator !== ctx.tokens.operator || hook !== ctx.tokens.hook) redactOptions = { secretValues: [ctx.tokens.operator, ctx.tokens.hook] };
      return redact(text, redactOptions);
    };
    const mappingContext = (permissionLoop: boolean): MappingContext => ({
      capture: { default: ctx.settings.get('capture.ceiling'), attention: ctx.settings.get('capture.attentionCeiling') },
      redact: redactText,
      newRunId: ulid,
      permissionLoop,
    });
    const clineHub: ClineHub = new ClineHub({
      discoveryPath: ctx.installerHost ? clineHubDiscoveryPath(ctx.installerHost.home) : null,
      emitter: emitter('cline'),
      acks,
      audit,
      durable,
      logger: createLogger('cline-hub'),
      sessions,
      context: () => mappingContext(true),
      steeringEnabled: () => killSwitch.enabled,
      redeclare: () => tracker.redeclareAll(),
      sessionEnded: (session) => tracker.ended('cline', session),
      registry: hubRegistry(registry, emitter('cline')),
    });
    // Transcripts the hooks point to: read after the hook is answered, only under the user's home.
    const transcripts = ctx.installerHost
      ? createTranscriptFeed({
          home: ctx.installerHost.home,
          vars: ctx.installerHost.vars,
          enabled: () => ctx.settings.get('features.transcripts'),
          emitter,
          context: () => mappingContext(false),
          sighted: (vendor, session) => {
            if (!registry.knows(session, 'transcript')) registry.sighted({ session, kind: 'transcript', agent: vendor, source: sessionSource(vendor, session) });
          },
          // A session another source owns gets the transcript's facts merged into its stream.
          enrich: (session, events) => (registry.owner(session) === undefined ? Promise.resolve(false) : registry.enrich(session, events)),
          audit,
          logger: createLogger('transcripts'),
          positions: ctx.db.memory ? undefined : sqlitePositions(ctx.db),
        })
      : null;
    const service = new HookService({
      tracker,
      engine,
      permissions,
      emitter,
      adapter: vendorAdapter,
      mappingContext,
      audit,
      logger: log,
      registry,
      observed: transcripts === null ? undefined : (vendor, call, run) => transcripts.observe(vendor, call.session, call.payload['transcript_path'], run),
    });

    /**
     * Handles the calls of an earlier version's hook intake log, each at the time it came, in this
     * turn: their events and the log's mark go into one group commit, committed now; the log goes
     * once every call's handling has settled.
     */
    const upgradeHooks = (): Promise<void> => {
      const legacy = ctx.db.memory ? null : LegacyHooks.open(ctx.db, ctx.db.name, (message, fields) => log.warn(message, fields));
      if (legacy === null) return Promise.resolve();
      const handled: Promise<unknown>[] = [];
      for (const hook of legacy.hooks) {
        if (!isVendorId(hook.vendor)) {
          log.warn('a hook call of the earlier intake log names no known vendor; it is skipped', { vendor: hook.vendor.slice(0, 40) });
          continue;
        }
        takenAt = hook.at;
        try {
          handled.push(service.handle(hook.vendor, hook.payload, { instruct: false, permissions: false }));
        } finally {
          takenAt = undefined;
        }
      }
      legacy.handled();
      turnCommitOf(ctx.db).commit();
      log.warn('handled the hook calls an earlier version answered and had not handled', { calls: handled.length });
      return Promise.allSettled(handled).then(() => {
        if (!legacy.finish()) log.warn('the earlier hook intake log stays: its mark could not be written', {});
      });
    };

    const unsubscribers: (() => void)[] = [];
    // Sessions of other AEP emitters (POST /events, WS emitters) join the sessions list as they are admitted.
    unsubscribers.push(
      ctx.relay.onAdmitted((events) => clineHub.admitted(events)),
      ctx.relay.onAdmitted((events) => {
        const nowMs = clock();
        for (const e of events) {
          if (!isEmitterSession(e)) continue;
          sessions.sightedEmitter({ source: e.source, session: e.session, agent: e.agent, ended: e.type === 'session.ended', nowMs });
        }
      }),
    );
    // A session another source took (the companion launched it) is not the hooks' to claim, and
    // what the hook path still queued for it is dropped (`owner-changed`): the owner's input is the
    // one route. An owner on the vendor's own emitter (the Cline hub) shares the hooks' claim.
    unsubscribers.push(
      registry.onOwnerChange((session, owner) => {
        if (owner === undefined || !isVendorId(owner.agent) || owner.source === sessionSource(owner.agent, session)) return;
        engine.ownerChanged(owner.agent, session);
        tracker.yielded(owner.agent, session);
      }),
    );
    for (const vendor of VENDORS) {
      const route = commandRouter(vendor, { engine, permissions, acks, audit, channel: emitter, durable });
      unsubscribers.push(emitter(vendor).onCommand(vendor === 'cline' ? clineHub.route(route) : route));
    }
    // What a previous run left queued is settled before any new hook can deliver it.
    engine.reconcile();
    // A session another source took before a crash let the drop commit: its hook-path queue goes now.
    for (const item of steeringRepo.allQueued())
      if (registry.ownedElsewhere(item.session, sessionSource(item.vendor, item.session))) engine.ownerChanged(item.vendor, item.session);
    tracker.restore();
    // Permission hooks a crashed daemon held are gone with it: their requests are dismissed.
    permissions.reconcile();
    // Calls an earlier version answered and never handled are handled now, before anything new.
    const upgraded = upgradeHooks();

    unsubscribers.push(
      killSwitch.onFlip((enabled, by) => {
        tracker.redeclareAll();
        if (!enabled) engine.steeringDisabled(by);
      }),
    );
    const sweep = (): void => {
      try {
        tracker.sweepIdle();
        engine.sweepIdle();
      } catch (error) {
        log.error('idle sweep failed', { error: String(error) });
      }
    };
    const every = options.sweepEveryMs ?? Math.min(60_000, Math.max(1_000, Math.floor(ctx.settings.get('steering.idleExpiryMs') / 4)));
    const timer = every > 0 ? setInterval(sweep, every) : null;
    timer?.unref?.();

    const disposers: Disposer[] = [
      // The pending list (agents/steer) edits, reorders and withdraws queued instructions through this.
      provideInstructionQueue(ctx, { db: ctx.db, channel: emitter, durable, audit, clock, context: () => mappingContext(false) }),
      // Doctor's synthetic hooks prove the route but are no agent's activity: the status bar skips them.
      ctx.routes.register(
        hookRoute(service, (vendor, payload) => {
          if (!isSyntheticHook(payload)) ctx.reportHook(vendor, clock());
        }),
      ),
      ctx.api.register({
        ...steeringApi(killSwitch),
        ...sessionsApi(sessions),
        ...vendorsApi(),
        ...instructionsApi(steeringRepo),
      }),
    ];
    options.onReady?.({ engine, tracker, permissions, killSwitch, service, emitters, upgraded, sweep });

    return async () => {
      if (timer) clearInterval(timer);
      clineHub.close();
      // Drain: new commands are nacked (busy, shutting down) and those under way are decided.
      await engine.drain();
      // Held hooks are dismissed (committed) and freed with an empty reply: the vendors fall back to their own dialogs.
      await permissions.close();
      for (const dispose of disposers.reverse()) await dispose();
      await upgraded;
      // Hooks already being handled finish (their events committed) before the emitters close.
      await service.settled();
      await transcripts?.close();
      await engine.handoversSettled();
      for (const unsubscribe of unsubscribers) unsubscribe();
      for (const e of emitters.values()) e.close();
      sessions.flush();
      lease.release();
    };
  };
}

/**
 * True for an admitted event that speaks for its own emitter's session: session-scoped, not a
 * command or an `attention.routed` (foreign emitters naming another's session), and not one of our
 * own vendor emitters (their sessions are tracked from the hooks).
 */
export function isEmitterSession(e: AepEvent): e is AepEvent & { session: string } {
  if (typeof e.session !== 'string' || e.session === '') return false;
  if (isCommandType(e.type) || e.type === 'attention.routed') return false;
  return !(isVendorId(e.agent) && e.source === sessionSource(e.agent, e.session));
}

/** The facts only the Cline hub reports: its approval cards, pending prompts, inputs and status. */
const HUB_FACTS = /^(attention\.|x\.cline\.(input|prompts|hub)\.)/;

/**
 * The Cline hub's side of the registry: the hub and the hooks emit on the one Cline emitter, so
 * the hub's port stamps the hooks' facts there as they are (their runs are the session's runs).
 */
function hubRegistry(registry: SessionRegistry, emitter: VendorEmitter): NonNullable<ClineHubDeps['registry']> {
  const ports = new Map<string, OwnerPort>();
  return {
    sighted: (session) => registry.sighted({ session, kind: 'hub', agent: 'cline', source: sessionSource('cline', session) }),
    controls: (session, yes) => {
      const held = ports.get(session);
      if (!yes) {
        if (held !== undefined) registry.disown(session, held);
        ports.delete(session);
        return;
      }
      const port: OwnerPort = {
        kind: 'hub',
        agent: 'cline',
        source: sessionSource('cline', session),
        currentRun: () => emitter.mappingState(session).run,
        emit: (events) => emitter.send(emitter.stampMapped(session, events)),
        reports: (type) => HUB_FACTS.test(type),
      };
      ports.set(session, port);
      registry.own(session, port);
    },
  };
}

/** The hooks feature as the daemon starts it. */
export const hooksFeature: Feature = createHooksFeature();
