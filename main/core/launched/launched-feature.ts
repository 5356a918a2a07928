/**
 * The launched-agents feature: one in-process emitter per catalogue agent, the host (launch, end,
 * shutdown, restart reconciliation), the command router, and the /api routes. The kill switch,
 * acks, durable log and audit sink come from the shared agent ports (agent-ports.ts), the same
 * ones the observed transport uses. Import boundaries: docs/ARCHITECTURE.md, Layout.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { AGENT_IDS, sendInputType, type AgentId, type LaunchedState } from '../../../common/agents';
import { instructType, isVendorId } from '../../../common/vendors';
import { redact } from '../aep/redact';
import { ulid } from '../aep/ulid';
import { agentsApi } from './agents-api';
import { launchApi } from './launch-api';
import { steerApi } from './steer/steer-api';
import { instructionQueueFor } from '../steering/instruction-queue';
import type { DaemonContext, Disposer, Feature } from '../daemon-context';
import { createLogger } from '../logger';
import { EpochsRepo } from '../store/epochs-repo';
import { acquireAgentPorts } from '../steering/agent-ports';
import { realScheduler, type Scheduler } from '../steering/permission-loop';
import { agentCommandRouter } from './agent-commands';
import { AgentEmitter } from './agent-emitter';
import { AgentsHost, type DriverFactory } from './agents-host';
import { BridgeFetcher } from './bridge-fetch';
import { AGENT_CATALOGUE } from './catalogue';
import { LaunchedRepo } from '../store/launched-repo';
import { SteeringService } from './steer/steering-service';
import type { MappingContext } from '../vendors/types';

/** The instance name the agent emitters declare. */
export const LAUNCHED_INSTANCE = 'aep-companion-launched';

/** Test seams; the daemon uses the defaults. */
export interface AgentsFeatureOptions {
  readonly clock?: () => number;
  readonly schedule?: Scheduler;
  readonly requestTimeoutMs?: number;
  readonly endBoundMs?: number;
  /** Silence during a turn after which the agent is reported hung (default 10 minutes). */
  readonly turnSilenceMs?: number;
  readonly driverFactory?: DriverFactory;
  readonly onReady?: (host: AgentsHost) => void;
}

/** A launched session that still runs on this daemon (what quitting the app would end). */
export interface RunningLaunched {
  readonly session: string;
  readonly agent: AgentId;
  /** The agent's display name (its catalogue entry). */
  readonly name: string;
  readonly state: LaunchedState;
}

/** The host of each running daemon's agents feature, for the read-only accessor below. */
const hosts = new WeakMap<DaemonContext, AgentsHost>();

/** The launched sessions still running on the daemon of `ctx`; empty when it has no agents feature. */
export function runningLaunched(ctx: DaemonContext): RunningLaunched[] {
  const host = hosts.get(ctx);
  if (host === undefined) return [];
  return host
    .sessions()
    .filter((s) => !s.ended)
    .map((s) => ({ session: s.session, agent: s.agent, name: AGENT_CATALOGUE[s.agent].name, state: s.state }));
}

/** True when `pid` still runs the command recorded for it (Linux /proc; elsewhere: trust the pid). */
export function pidRunsCommand(pid: number, command: readonly string[]): boolean {
  try {
    const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return command.length > 0 && cmdline.some((arg) => arg === command[0] || basename(arg) === basename(command[0]) || command.slice(1).includes(arg));
  } catch {
    return process.platform !== 'linux';
  }
}

/** Builds the feature. */
export function createAgentsFeature(options: AgentsFeatureOptions = {}): Feature {
  return (ctx: DaemonContext): Disposer => {
    const log = createLogger('agents');
    // Kill switch, acks, durable log and audit sink: shared with the observed transport.
    const lease = acquireAgentPorts(ctx, options.clock);
    const { clock, audit, acks, durable, killSwitch, registry } = lease.ports;
    const epochs = new EpochsRepo(ctx.db);
    const repo = new LaunchedRepo(ctx.db);
    const steeringEnabled = (): boolean => killSwitch.enabled;
    const emitters = new Map<AgentId, AgentEmitter>();
    for (const agent of AGENT_IDS) {
      const link = ctx.relay.attachEmitter({ agent, instance: LAUNCHED_INSTANCE, typed: true, owns: true });
      emitters.set(agent, new AgentEmitter(agent, link, epochs.next(`${agent}/${LAUNCHED_INSTANCE}`), clock, ulid));
    }
    const emitter = (agent: AgentId): AgentEmitter => emitters.get(agent) as AgentEmitter;
    // A session the user's hooks see too takes the hook path's verb as well: one route, the launch host's.
    const steeringVerbs = (agent: AgentId, hooked: boolean): string[] => [sendInputType(agent), ...(hooked && isVendorId(agent) ? [instructType(agent)] : [])];
    const accepts = (agent: AgentId, hooked = false): string[] => [...(steeringEnabled() ? steeringVerbs(agent, hooked) : []), 'control.cancel', 'control.attention.respond'];
    const mapping = (): MappingContext => ({
      capture: { default: ctx.settings.get('capture.ceiling'), attention: ctx.settings.get('capture.attentionCeiling') },
      redact: (text) => redact(text),
      newRunId: ulid,
      permissionLoop: true,
    });
    // Mid-turn steering (agents/steer): the durable record is settled before anything runs.
    const steering = new SteeringService({
      mapping,
      db: ctx.db,
      settings: ctx.settings,
      audit,
      clock,
      emitter,
      override: ctx.settingOverrides?.['features.midTurnSteering'] ?? null,
      instructions: () => instructionQueueFor(ctx),
    });
    steering.settleAfterRestart();
    const host = new AgentsHost({
      steering,
      repo,
      settings: ctx.settings,
      audit,
      logger: log,
      clock,
      newId: ulid,
      emitter,
      host: ctx.installerHost,
      fetcher: new BridgeFetcher({ dataDir: ctx.dataDir, env: ctx.installerHost?.processEnv ?? {}, logger: createLogger('agents.bridge') }),
      version: ctx.version,
      mapping,
      schedule: options.schedule ?? realScheduler,
      accepts,
      requestTimeoutMs: options.requestTimeoutMs ?? 120_000,
      endBoundMs: options.endBoundMs ?? 3_000,
      turnSilenceMs: options.turnSilenceMs ?? 10 * 60_000,
      isOurs: pidRunsCommand,
      driverFactory: options.driverFactory,
      registry,
    });
    host.reconcile();
    const unsubscribers: (() => void)[] = [];
    for (const agent of AGENT_IDS) {
      const route = agentCommandRouter(agent, emitter(agent), { acks, durable, audit, clock, session: (id) => host.session(id), steeringEnabled, end: (s, detail, cause) => host.endLive(s, detail, cause) });
      unsubscribers.push(emitter(agent).onCommand(route));
    }
    // The kill switch is hot: the verb is withdrawn (or declared again) at once, queued inputs drop.
    unsubscribers.push(
      killSwitch.onFlip((enabled) => {
        for (const s of host.sessions()) {
          emitter(s.agent).declare(s.session, accepts(s.agent, host.isHooked(s.session)));
          if (!enabled) s.controller.dropAll('steering-disabled');
        }
      }),
    );
    const disposeApi = ctx.api.register({ ...agentsApi(host), ...launchApi(host), ...steerApi(steering) });
    hosts.set(ctx, host);
    options.onReady?.(host);
    return async () => {
      hosts.delete(ctx);
      disposeApi();
      for (const unsubscribe of unsubscribers) unsubscribe();
      await host.shutdown();
      steering.close();
      for (const e of emitters.values()) e.close();
      lease.release();
    };
  };
}

/** The feature as the daemon starts it. */
export const agentsFeature: Feature = createAgentsFeature();
