/**
 * The launched-agents host: resolves catalogue entries, launches (spawn → initialize → session),
 * keeps the live sessions, ends them (one by one, or all at daemon shutdown: cancel, close, kill
 * after a bound, each audited), and at start settles what a previous daemon left running (its
 * process killed when still alive; the session ended, or resumable where the agent can load it).
 */
import { statSync } from 'node:fs';
import type { SteerSupport } from '../../../common/agent-inputs';
import type { AgentCatalogueEntry, AgentId, AgentProtocol, LaunchedSessionInfo, LaunchResult } from '../../../common/agents';
import { AGENT_IDS } from '../../../common/agents';
import type { SettingKey } from '../../../common/settings';
import { err, ok, type Result } from '../../../common/result';
import type { InstallerHost } from '../installer/installer-env';
import type { MappingContext } from '../vendors/types';
import type { Logger } from '../logger';
import type { SettingsRepo } from '../store/settings-repo';
import type { AuditSink } from '../steering/steering-types';
import type { SessionRegistry } from '../sessions/registry';
import type { OwnerPort, SourceKind } from '../sessions/source';
import { speaksWithAgent } from '../sessions/merge';
import { newTurnMappingState, runFailed } from './acp-mapping';
import { launchedSource, type AgentEmitter } from './agent-emitter';
import { killLeftover } from './agent-process';
import type { BridgeFetcher } from './bridge-fetch';
import { AGENT_CATALOGUE, resolveAgent, type ResolvedAgent } from './catalogue';
import { CodexDriver } from '../vendors/codex/app-server-driver';
import type { AgentDriver, DriverEvents } from './driver';
import type { LaunchedRepo, LaunchedRow } from '../store/launched-repo';
import { LaunchedSession, toolAbandoned } from './launched-session';

/** Who asked, for the audit. */
export interface Actor {
  readonly actor: string;
  readonly surface: 'console' | 'cli' | 'api' | 'daemon' | 'ws';
}

/** Builds the driver of one agent process (tests may substitute one). */
export type DriverFactory = (agent: ResolvedAgent, command: readonly string[], cwd: string, events: DriverEvents) => AgentDriver | Promise<AgentDriver>;

/** What the host is built from; everything arrives as a parameter. */
export interface AgentsHostDeps {
  readonly repo: LaunchedRepo;
  readonly settings: SettingsRepo;
  readonly audit: AuditSink;
  readonly logger: Logger;
  readonly clock: () => number;
  readonly newId: () => string;
  readonly emitter: (agent: AgentId) => AgentEmitter;
  readonly host: InstallerHost | undefined;
  readonly fetcher: BridgeFetcher;
  readonly version: string;
  readonly mapping: () => MappingContext;
  readonly schedule: (ms: number, fire: () => void) => () => void;
  /**
   * The verbs a session declares now (the kill switch withdraws send_input); `hooked` when the
   * user's hooks see the session too (the hook path's verb is then taken here, see agent-commands.ts).
   */
  readonly accepts: (agent: AgentId, hooked: boolean) => readonly string[];
  /** The session registry: a launched session is owned by this host, other sources enrich it. */
  readonly registry?: SessionRegistry;
  /** Bound on every agent request but prompts (hang detection). */
  readonly requestTimeoutMs: number;
  /** A running turn with no message from the agent for this long is reported hung (once per turn). */
  readonly turnSilenceMs: number;
  /** Bound between the steps of ending an agent (stdin close, SIGTERM, SIGKILL). */
  readonly endBoundMs: number;
  /** Confirms a pid left by a previous daemon is still that agent (pid reuse). */
  readonly isOurs: (pid: number, command: readonly string[]) => boolean;
  readonly driverFactory?: DriverFactory;
  /** Mid-turn steering (agents/steer/steering-service.ts): wraps each driver, attaches to each session, derives the badge. */
  readonly steering?: {
    wrap(driver: AgentDriver, protocol: AgentProtocol): AgentDriver;
    attach(session: LaunchedSession): void;
    support(session: string): SteerSupport | undefined;
  };
}

/** Why a turn a previous daemon left running failed (`run.failed` error message at reconcile). */
const RUN_STOPPED = 'the daemon stopped unexpectedly while the turn ran';

export type LaunchError = 'bad-request' | 'not-installed' | 'fetch-failed' | 'launch-failed' | 'not-found' | 'not-resumable';

/** The host of one daemon. */
export class AgentsHost {
  private readonly live = new Map<string, LaunchedSession>();
  /** Live sessions the user's hooks see too. */
  private readonly hooked = new Set<string>();
  private closing = false;

  constructor(private readonly deps: AgentsHostDeps) {}

  /** The live session with this id, if any. */
  session(session: string): LaunchedSession | undefined {
    return this.live.get(session);
  }

  /** True when the user's hooks see this live session too. */
  isHooked(session: string): boolean {
    return this.hooked.has(session);
  }

  sessions(): LaunchedSession[] {
    return [...this.live.values()];
  }

  private override(agent: AgentId): readonly string[] | null {
    return this.deps.settings.get(`agents.${agent}.command` as SettingKey) as readonly string[] | null;
  }

  private resolve(agent: AgentId): Promise<ResolvedAgent> {
    const host = this.deps.host ?? { home: '', path: '' };
    return resolveAgent(AGENT_CATALOGUE[agent], { host, bridgeEntry: (b) => this.deps.fetcher.entry(b), override: this.override(agent) });
  }

  /** The catalogue with what is installed here. */
  async catalogue(): Promise<AgentCatalogueEntry[]> {
    return Promise.all(AGENT_IDS.map((id) => this.entry(id)));
  }

  async entry(id: AgentId): Promise<AgentCatalogueEntry> {
    const r = await this.resolve(id);
    const bridge = r.spec.bridge && !r.overridden ? this.deps.fetcher.status(r.spec.bridge) : null;
    return {
      id,
      name: r.spec.name,
      protocol: r.spec.protocol,
      installed: r.command !== null || (bridge !== null && bridge.state !== 'failed'),
      command: r.command,
      overridden: r.overridden,
      cliPath: r.cliPath,
      howToGet: r.spec.howToGet,
      bridge,
    };
  }

  /** Fetches an agent's bridge now (visible progress in the catalogue). */
  async fetchBridge(id: AgentId): Promise<Result<AgentCatalogueEntry, 'fetch-failed' | 'bad-request'>> {
    const bridge = AGENT_CATALOGUE[id].bridge;
    if (!bridge) return err('bad-request', `${id} has no bridge package`);
    try {
      await this.deps.fetcher.fetch(bridge);
    } catch (error) {
      return err('fetch-failed', (error as Error).message);
    }
    return ok(await this.entry(id));
  }

  /** Launches an agent in `cwd` and sends the first prompt (not waiting for the turn). */
  async launch(agent: AgentId, cwd: string, prompt: string | undefined, by: Actor, resume?: LaunchedRow): Promise<Result<LaunchResult, LaunchError>> {
    const base = { actor: by.actor, surface: by.surface, commandId: null };
    if (this.closing) return err('launch-failed', 'the daemon is shutting down');
    if (!isDirectory(cwd)) return err('bad-request', `cwd is not an existing directory: ${cwd}`);
    let resolved = await this.resolve(agent);
    if (resolved.command === null && resolved.needsBridge && resolved.spec.bridge) {
      try {
        await this.deps.fetcher.fetch(resolved.spec.bridge);
      } catch (error) {
        this.deps.audit({ ...base, action: 'agent.launch', session: null, outcome: 'error', detail: { agent, error: (error as Error).message } });
        return err('fetch-failed', (error as Error).message);
      }
      resolved = await this.resolve(agent);
    }
    const command = resolved.command;
    if (command === null) return err('not-installed', `${resolved.spec.name} is not installed: ${resolved.spec.howToGet}`);
    let session: LaunchedSession | null = null;
    const events: DriverEvents = {
      update: (u) => session?.update(u),
      permission: (ask) => (session ? session.permission(ask) : Promise.resolve({ outcome: 'cancelled' })),
      exit: (exit) => {
        if (session) {
          this.deps.audit({ actor: 'daemon', surface: 'daemon', action: 'agent.exited', session: session.session, commandId: null, outcome: session.ended ? 'ok' : 'error', detail: { agent, reason: exit.reason } });
          session.exited(exit);
        }
      },
      hung: (method, afterMs) => session?.hung(method, afterMs),
      activity: () => session?.touched(),
    };
    const raw = await (this.deps.driverFactory ?? defaultFactory(this.deps))(resolved, command, cwd, events);
    // Mid-turn steering (agents/steer) sees every prompt: the driver is wrapped when it is on board.
    const driver = this.deps.steering ? this.deps.steering.wrap(raw, resolved.spec.protocol) : raw;
    // Until the session is owned, the agent's hooks wait: they must not speak for it first.
    const launching = this.deps.registry?.launch(agent);
    try {
      return await this.opening(agent, cwd, prompt, by, resume, resolved, driver, (s) => (session = s));
    } finally {
      launching?.settle();
    }
  }

  /** The launch after its driver exists: the session opened, owned, declared, started and prompted. */
  private async opening(
    agent: AgentId,
    cwd: string,
    prompt: string | undefined,
    by: Actor,
    resume: LaunchedRow | undefined,
    resolved: ResolvedAgent,
    driver: AgentDriver,
    bind: (s: LaunchedSession) => void,
  ): Promise<Result<LaunchResult, LaunchError>> {
    const base = { actor: by.actor, surface: by.surface, commandId: null };
    const command = resolved.command as readonly string[];
    let opened;
    try {
      opened = await driver.open(cwd, resume?.session);
    } catch (error) {
      await driver.close(this.deps.endBoundMs).catch(() => undefined);
      const message = (error as Error).message;
      this.deps.audit({ ...base, action: resume ? 'agent.resume' : 'agent.launch', session: resume?.session ?? null, outcome: 'error', detail: { agent, error: message } });
      return err('launch-failed', `${resolved.spec.name} did not start a session: ${message}`);
    }
    const id = opened.session;
    const emitter = this.deps.emitter(agent);
    const registry = this.deps.registry;
    const session = new LaunchedSession({
      agent,
      session: id,
      driver,
      emitter,
      logger: this.deps.logger,
      clock: this.deps.clock,
      newId: this.deps.newId,
      mapping: this.deps.mapping,
      holdMs: () => this.deps.settings.get('permissions.holdMs'),
      turnSilenceMs: this.deps.turnSilenceMs,
      schedule: this.deps.schedule,
      resumable: opened.resumable,
      onState: (state, reason) => {
        const final = state === 'ended' && !this.closing ? 'ended' : state;
        this.deps.repo.setState(agent, id, final, this.deps.clock(), reason ?? null);
        if (state === 'ended' || state === 'resumable') {
          this.live.delete(id);
          this.hooked.delete(id);
          registry?.disown(id, port);
        }
      },
      ...(registry ? { admitOwn: (e) => registry.admitOwn(id, e) } : {}),
    });
    bind(session);
    // The launch host owns the session: the other sources (the user's hooks, a transcript) enrich it.
    const port: OwnerPort = {
      kind: 'launched',
      agent,
      source: launchedSource(agent, id),
      currentRun: () => session.currentRun,
      emit: (events) => session.emitFacts(events),
      // The agent's replies, usage and errors arrive over its protocol: a transcript's copies are dropped.
      reports: speaksWithAgent,
      joined: (kind: SourceKind) => {
        if (kind !== 'hooks' || session.ended || this.hooked.has(id)) return;
        this.hooked.add(id);
        emitter.declare(id, this.deps.accepts(agent, true));
      },
    };
    this.live.set(id, session);
    this.deps.steering?.attach(session);
    this.deps.repo.started({ source: launchedSource(agent, id), session: id, agent, protocol: resolved.spec.protocol, cwd, command, agentInfo: opened.agentInfo, capabilities: opened.initialize, pid: driver.pid, nowMs: this.deps.clock() });
    registry?.own(id, port);
    emitter.declare(id, this.deps.accepts(agent, this.hooked.has(id)));
    await session.started(opened.agentInfo);
    this.deps.audit({ ...base, action: resume ? 'agent.resume' : 'agent.launch', session: id, outcome: 'ok', detail: { agent, cwd, pid: driver.pid, agentInfo: opened.agentInfo } });
    if (prompt !== undefined && prompt.trim() !== '') {
      session.controller.submit({ id: this.deps.newId(), text: prompt, delivery: 'queue', submittedAtMs: this.deps.clock(), synthetic: false });
    }
    return ok({ session: id, agent, capabilities: opened.initialize });
  }

  /** Resumes a session a previous daemon left resumable. */
  async resume(session: string, by: Actor): Promise<Result<LaunchResult, LaunchError>> {
    const row = this.deps.repo.get(session);
    if (!row) return err('not-found', `no launched session ${session}`);
    if (row.state !== 'resumable') return err('not-resumable', `session ${session} is ${row.state}, not resumable`);
    return this.launch(row.agent, row.cwd, undefined, by, row);
  }

  /** Ends a live session (audited). */
  async end(session: string, by: Actor, reason: 'normal' | 'killed' = 'normal', detail = 'ended by the operator'): Promise<Result<LaunchedSessionInfo, 'not-found'>> {
    const live = this.live.get(session);
    const row = this.deps.repo.get(session);
    if (!live) {
      if (!row) return err('not-found', `no launched session ${session}`);
      if (row.state === 'resumable') this.deps.repo.setState(row.agent, session, 'ended', this.deps.clock(), detail);
      return ok(this.info(this.deps.repo.get(session) as LaunchedRow));
    }
    this.deps.audit({ actor: by.actor, surface: by.surface, action: 'agent.end', session, commandId: null, outcome: 'ok', detail: { agent: live.agent, reason: detail } });
    await live.end(reason, detail, this.deps.endBoundMs);
    return ok(this.info(this.deps.repo.get(session) as LaunchedRow));
  }

  /** Ends a live session for a command (`control.cancel { scope: "session" }`): terminal events cause-linked. */
  async endLive(session: LaunchedSession, detail: string, cause: string): Promise<void> {
    this.deps.audit({ actor: 'daemon', surface: 'daemon', action: 'agent.end', session: session.session, commandId: cause, outcome: 'ok', detail: { agent: session.agent, reason: detail } });
    await session.end('normal', detail, this.deps.endBoundMs, cause);
  }

  /** Daemon shutdown: every live session ended (cancel, close, kill after the bound), audited; resumable ones stay resumable. */
  async shutdown(): Promise<void> {
    this.closing = true;
    await Promise.all(
      this.sessions().map(async (s) => {
        const row = this.deps.repo.get(s.session);
        const resumable = row?.capabilities['agentCapabilities'] !== undefined ? (row.capabilities['agentCapabilities'] as Record<string, unknown>)['loadSession'] === true : row?.protocol === 'codex-app-server';
        this.deps.audit({ actor: 'daemon', surface: 'daemon', action: 'agent.end', session: s.session, commandId: null, outcome: 'ok', detail: { agent: s.agent, reason: 'daemon shutdown', resumable } });
        await s.end('normal', 'daemon shutdown', this.deps.endBoundMs);
        this.deps.repo.setState(s.agent, s.session, resumable ? 'resumable' : 'ended', this.deps.clock(), 'daemon shutdown');
      }),
    );
  }

  /** At start: what a previous daemon left open is settled (leftover process killed; open runs failed; ended or resumable, with the reason). */
  reconcile(): number {
    const rows = this.deps.repo.leftOpen();
    for (const row of rows) {
      const killed = row.pid !== null && killLeftover(row.pid, (pid) => this.deps.isOurs(pid, row.command));
      const caps = (row.capabilities['agentCapabilities'] ?? {}) as Record<string, unknown>;
      const resumable = caps['loadSession'] === true || row.protocol === 'codex-app-server';
      const reason = `the daemon stopped unexpectedly while the session ran${killed ? ' (its agent process was ended)' : ''}`;
      this.deps.repo.setState(row.agent, row.session, resumable ? 'resumable' : 'ended', this.deps.clock(), reason);
      const emitter = this.deps.emitter(row.agent);
      // The turns it left running end, failed, each caused by its own run.started; before
      // each, the tool calls that turn left open fail too, each caused by its tool.requested.
      const context = this.deps.mapping();
      const failed = this.deps.repo.openRuns(row.source, row.session).flatMap((open) => {
        const tools = this.deps.repo.openTools(row.source, row.session, open.run).map((t) => toolAbandoned(t, open.run, 'daemon-stopped', RUN_STOPPED, context));
        const event = runFailed('daemon-stopped', RUN_STOPPED, { ...newTurnMappingState(), run: open.run }, context);
        return event ? [...tools, { ...event, cause: open.startedId }] : tools;
      });
      // Permission requests the dead daemon held can no longer be answered: dismissed, first.
      const dismissed = this.deps.repo.openAttention(row.source, row.session).map((id) => ({
        type: 'attention.resolved', subject: id, cause: id, capture: 'metadata' as const, data: { resolution: 'dismissed' },
      }));
      const stamped = emitter.stamp(row.session, dismissed);
      stamped.push(...emitter.stampMapped(row.session, failed));
      stamped.push(...emitter.stamp(row.session, [{ type: 'session.ended', capture: 'metadata', data: { reason: 'error' } }]));
      void emitter.send(stamped).catch(() => undefined);
      this.deps.audit({ actor: 'daemon', surface: 'daemon', action: 'agent.reconciled', session: row.session, commandId: null, outcome: resumable ? 'resumable' : 'ended', detail: { agent: row.agent, pid: row.pid, killed, reason } });
    }
    return rows.length;
  }

  /** Every launched session, live state over the table. */
  list(): LaunchedSessionInfo[] {
    return this.deps.repo.list().map((r) => this.info(r));
  }

  info(row: LaunchedRow): LaunchedSessionInfo {
    const live = this.live.get(row.session);
    return {
      session: row.session,
      agent: row.agent,
      source: row.source,
      cwd: row.cwd,
      state: live ? live.state : row.state,
      pid: live ? live.driver.pid : row.pid,
      agentInfo: row.agentInfo,
      capabilities: row.capabilities,
      queued: live ? live.controller.queuedCount : 0,
      ...(live && this.deps.steering ? { steer: this.deps.steering.support(row.session) } : {}),
      startedAt: new Date(row.startedAtMs).toISOString(),
      endedAt: row.endedAtMs === null ? null : new Date(row.endedAtMs).toISOString(),
      endReason: row.endReason,
    };
  }
}

function isDirectory(path: string): boolean {
  try {
    return typeof path === 'string' && path !== '' && statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * The real drivers: ACP through the SDK, Codex through its app-server protocol. The ACP SDK (and the
 * schema library under it) is loaded at the first ACP launch, not with the daemon.
 */
function defaultFactory(deps: AgentsHostDeps): DriverFactory {
  return async (agent, command, cwd, events) => {
    const env = { ...(deps.host?.processEnv ?? {}), ...agent.env };
    const spawn = { command, cwd, env, logger: deps.logger };
    const common = { spawn, events, logger: deps.logger, requestTimeoutMs: deps.requestTimeoutMs, clientInfo: { name: 'aep-companion', version: deps.version } };
    if (agent.spec.protocol === 'codex-app-server') return new CodexDriver(common);
    const { AcpDriver } = await import('./acp-driver');
    return new AcpDriver({ ...common, authMethod: agent.spec.authMethod?.(env) ?? null });
  };
}
