/**
 * The parts both agent transports (observed: hook-fed; launched: ACP and the Codex app-server)
 * share, built once per daemon: the kill switch (one audited flip however many features listen),
 * the control acks, the durable log, the audit sink, the sessions and steering repositories and the
 * session registry.
 * Each feature acquires them and releases them on dispose; the last release closes them.
 */
import type { DaemonContext } from '../daemon-context';
import { createLogger } from '../logger';
import { SessionRegistry } from '../sessions/registry';
import { SessionRegistryRepo } from '../store/session-registry-repo';
import { SessionsRepo } from '../store/sessions-repo';
import { SteeringRepo } from '../store/steering-repo';
import { auditSink } from './audit-sink';
import { ControlAcks } from './control-acks';
import { storeDurableLog } from './durable-log';
import { KillSwitch } from './kill-switch';
import type { AuditSink, Clock, DurableLog } from './steering-types';

/** The shared parts of one daemon's agents module. */
export interface AgentPorts {
  /** The clock of the shared parts: a feature's injected clock when one was given, else wall time. */
  readonly clock: Clock;
  readonly audit: AuditSink;
  readonly sessions: SessionsRepo;
  readonly steeringRepo: SteeringRepo;
  readonly acks: ControlAcks;
  /** Steering rows, audit rows and the events that report them commit in one transaction. */
  readonly durable: DurableLog;
  readonly killSwitch: KillSwitch;
  /** One identity per agent session across the transports, its owner, and the merge of their facts. */
  readonly registry: SessionRegistry;
}

/** A feature's hold on the ports; `release` is idempotent. */
export interface AgentPortsLease {
  readonly ports: AgentPorts;
  release(): void;
}

/** The built parts, with the clock a feature gave and the count of features holding them. */
class Held implements AgentPorts {
  given: Clock | null = null;
  users = 0;
  readonly clock: Clock = () => (this.given ?? Date.now)();
  readonly audit: AuditSink;
  readonly sessions: SessionsRepo;
  readonly steeringRepo: SteeringRepo;
  readonly acks: ControlAcks;
  readonly durable: DurableLog;
  readonly killSwitch: KillSwitch;
  readonly registry: SessionRegistry;

  constructor(ctx: DaemonContext) {
    this.audit = auditSink(ctx.audit, this.clock, createLogger('agents.audit'));
    this.sessions = new SessionsRepo(ctx.db);
    this.steeringRepo = new SteeringRepo(ctx.db);
    this.acks = new ControlAcks(this.steeringRepo, this.clock);
    this.durable = storeDurableLog(ctx.db, ctx.eventStore, createLogger('agents.durable'));
    this.killSwitch = new KillSwitch(ctx.settings, this.audit);
    this.registry = new SessionRegistry({ repo: new SessionRegistryRepo(ctx.db), clock: this.clock, logger: createLogger('sessions') });
  }
}

const held = new WeakMap<DaemonContext, Held>();

/**
 * The ports of `ctx`, built on first use. `clock` is the feature's injected clock (a test seam):
 * the shared parts read it from then on. One daemon has one clock: a second, different one is an error.
 */
export function acquireAgentPorts(ctx: DaemonContext, clock?: Clock): AgentPortsLease {
  const entry = held.get(ctx) ?? new Held(ctx);
  if (clock !== undefined) {
    if (entry.given !== null && entry.given !== clock) throw new Error('the agent features of one daemon were given different clocks');
    entry.given = clock;
  }
  held.set(ctx, entry);
  entry.users += 1;
  let released = false;
  return {
    ports: entry,
    release: () => {
      if (released) return;
      released = true;
      entry.users -= 1;
      if (entry.users > 0) return;
      held.delete(ctx);
      entry.killSwitch.close();
      entry.sessions.flush();
    },
  };
}
