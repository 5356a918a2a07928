/**
 * Mid-turn steering for one daemon: the toggle, the durable record, one `SteerSession` per live
 * launched session, the pending list (launched inputs and hook-path instructions) and the restart
 * settlement. The host calls `wrap` on each new driver and `attach` on each new session; the
 * session record's `steer` field comes from `support`.
 */
import type { Database } from 'better-sqlite3';
import type {
  AgentInputRecord,
  PendingItem,
  PendingList,
  SteerSupport,
} from '../../../../common/agent-inputs';
import { inputSettledType } from '../../../../common/agent-inputs';
import type { AgentId, AgentProtocol } from '../../../../common/agents';
import type { Surface } from '../../../../common/audit';
import { err, ok, type Result } from '../../../../common/result';
import { QueuePausesRepo } from '../../store/queue-pauses-repo';
import type { SettingsRepo } from '../../store/settings-repo';
import { gateFor } from '../../vendors/capture-gate';
import type { MappingContext } from '../../vendors/types';
import type { InstructionQueue } from '../../steering/instruction-queue';
import type { AuditSink } from '../../steering/steering-types';
import type { AgentEmitter } from '../agent-emitter';
import type { AgentDriver } from '../driver';
import type { LaunchedSession } from '../launched-session';
import { AgentInputsRepo } from '../../store/inputs-repo';
import { SteeringDriver } from './steer-driver';
import { SteerSession } from './steer-session';
import { MidTurnToggle } from './toggle';

export interface SteeringServiceDeps {
  readonly db: Database;
  readonly settings: SettingsRepo;
  readonly audit: AuditSink;
  readonly clock: () => number;
  readonly emitter: (agent: AgentId) => AgentEmitter;
  /** The host's override of `features.midTurnSteering` (its environment), or null. */
  readonly override: boolean | null;
  /** The hook-path instruction queue of this daemon, when the hooks feature runs. */
  readonly instructions: () => InstructionQueue | undefined;
  /** The capture policy and redaction in force now (gates the text of an edit on the stream). */
  readonly mapping: () => MappingContext;
}

export type PendingError = 'not-found' | 'not-queued' | 'invalid-request';

interface By {
  readonly actor: string;
  readonly surface: Surface;
}

export class SteeringService {
  readonly repo: AgentInputsRepo;
  readonly toggle: MidTurnToggle;
  readonly pauses: QueuePausesRepo;
  private readonly sessions = new Map<string, SteerSession>();
  private readonly launched = new Map<string, LaunchedSession>();

  constructor(private readonly deps: SteeringServiceDeps) {
    this.repo = new AgentInputsRepo(deps.db);
    this.pauses = new QueuePausesRepo(deps.db);
    this.toggle = new MidTurnToggle(deps.settings, deps.audit, deps.override);
  }

  /** Wraps a new agent driver so its prompts go through the classifier. */
  wrap(driver: AgentDriver, protocol: AgentProtocol): AgentDriver {
    return new SteeringDriver(driver, protocol);
  }

  /** Installs steering on a new launched session (its driver must come from `wrap`). */
  attach(session: LaunchedSession): void {
    const driver = session.driver;
    if (!(driver instanceof SteeringDriver)) return;
    const emitter = this.deps.emitter(session.agent);
    this.launched.set(session.session, session);
    this.sessions.set(
      session.session,
      new SteerSession({
        agent: session.agent,
        session,
        driver,
        repo: this.repo,
        audit: this.deps.audit,
        clock: this.deps.clock,
        steeringOn: () => this.deps.settings.get('features.steering'),
        midTurnOn: () => this.toggle.enabled,
        emit: (drafts) => void session.send(emitter.stamp(session.session, drafts)),
        source: `urn:aep-companion:launched:${session.agent}`,
        pauses: this.pauses,
        gate: (type) => gateFor(type, this.deps.mapping()),
        onToggle: (listener) => this.toggle.onChange(() => listener()),
      }),
    );
  }

  /** supports_steering and the badge of a live session (undefined when it is not live here). */
  support(session: string): SteerSupport | undefined {
    const live = this.launched.get(session);
    if (live?.ended) {
      this.launched.delete(session);
      this.sessions.delete(session);
    }
    return this.sessions.get(session)?.support();
  }

  /**
   * At start, before any session runs: a message caught `sent` by the previous daemon settles
   * `interrupted` (never re-sent); queued ones are dropped (a resumed session is a replacement:
   * nothing waiting for the old one is delivered to it). Each gets its audit row and event.
   */
  settleAfterRestart(): AgentInputRecord[] {
    const settled = this.repo.settleAfterRestart(() => false, this.deps.clock());
    for (const r of settled) {
      this.deps.audit({
        actor: 'daemon',
        surface: 'daemon',
        action: r.outcome === 'interrupted' ? 'input.interrupted' : 'input.dropped',
        session: r.session,
        commandId: r.commandId,
        outcome: r.outcome ?? 'dropped',
        detail: { reason: r.reason },
      });
      const emitter = this.deps.emitter(r.agent as AgentId);
      const data = {
        outcome: r.outcome,
        delivery: r.delivery,
        reason: r.reason,
        ...(r.mechanism ? { mechanism: r.mechanism } : {}),
      };
      void emitter
        .send(
          emitter.stamp(r.session, [
            { type: inputSettledType(r.agent), capture: 'metadata', cause: r.commandId, data },
          ]),
        )
        .catch(() => undefined);
    }
    return settled;
  }

  /** Everything a session still holds, next first. */
  pending(session: string): PendingList {
    const inputs: PendingItem[] = this.repo.queued(session).map((r, i) => ({
      kind: 'input',
      commandId: r.commandId,
      session,
      position: i,
      text: r.text,
      delivery: r.delivery,
      queuedAt: r.queuedAt,
      edits: r.edits,
    }));
    const instructions: PendingItem[] = (this.deps.instructions()?.queued(session) ?? []).map(
      (q, i) => ({
        kind: 'instruction',
        commandId: q.commandId,
        session,
        position: inputs.length + i,
        text: q.text,
        delivery: 'instruct',
        queuedAt: new Date(q.queuedAtMs).toISOString(),
        edits: 0,
      }),
    );
    const held = this.launched.get(session)?.controller.paused ? this.pauses.get(session) : null;
    const paused = held ? { since: new Date(held.pausedAtMs).toISOString(), cause: held.cause } : null;
    return { session, items: [...inputs, ...instructions], support: this.support(session) ?? null, paused };
  }

  /** Lets a queue held by Stop flow again: the next message is sent once the agent is idle. */
  resume(session: string, by: By): Result<PendingList, PendingError> {
    const live = this.launched.get(session);
    if (!live || live.ended) return err('not-found', `no live launched session ${session}`);
    if (!live.controller.resume()) return err('not-queued', `the queue of session ${session} is not paused`);
    this.audit(by, 'input.queue.resume', session, null, 'ok');
    return ok(this.pending(session));
  }

  edit(
    session: string,
    commandId: string,
    text: unknown,
    by: By,
  ): Result<PendingItem, PendingError> {
    if (typeof text !== 'string' || text.trim() === '')
      return err('invalid-request', "'text' must be a non-empty string");
    const input = this.repo.get(session, commandId);
    if (input) {
      if (input.state !== 'queued')
        return err('not-queued', `message ${commandId} is ${input.state}: it can no longer change`);
      const live = this.launched.get(session);
      if (!live?.controller.edit(commandId, text))
        return err('not-queued', `message ${commandId} is no longer queued`);
      const edited = this.repo.edit(session, commandId, text, this.deps.clock());
      this.audit(by, 'input.edited', session, commandId, edited.ok ? 'ok' : 'rejected');
      if (edited.ok) this.sessions.get(session)?.edited(commandId, text, edited.value.edits);
      return edited.ok
        ? ok(this.item(session, commandId))
        : err('not-queued', edited.error.message);
    }
    const queue = this.deps.instructions();
    if (!queue) return err('not-found', `no message ${commandId} in session ${session}`);
    const edited = queue.edit(session, commandId, text, by);
    return edited.ok
      ? ok(this.item(session, commandId))
      : err(
          edited.error.code === 'not-found'
            ? 'not-found'
            : edited.error.code === 'invalid-text'
              ? 'invalid-request'
              : 'not-queued',
          edited.error.message,
        );
  }

  reorder(session: string, order: unknown, by: By): Result<PendingList, PendingError> {
    if (!Array.isArray(order) || order.some((id) => typeof id !== 'string'))
      return err('invalid-request', "'order' must be an array of command ids");
    const ids = order as string[];
    const inputs = new Set(this.repo.queued(session).map((r) => r.commandId));
    const mine = ids.filter((id) => inputs.has(id));
    const theirs = ids.filter((id) => !inputs.has(id));
    if (inputs.size > 0) {
      const before = this.repo.queued(session).map((r) => r.commandId);
      const live = this.launched.get(session);
      if (!live?.controller.reorder(mine))
        return err(
          'invalid-request',
          `the order must name each of the ${inputs.size} queued messages exactly once`,
        );
      const moved = this.repo.reorder(session, mine);
      if (!moved.ok) return err('invalid-request', moved.error.message);
      this.audit(by, 'input.reordered', session, null, 'ok');
      const first = mine.findIndex((id, i) => before[i] !== id);
      if (first >= 0) this.sessions.get(session)?.reordered(mine, mine[first]);
    }
    if (theirs.length > 0) {
      const queue = this.deps.instructions();
      const moved = queue?.reorder(session, theirs, by);
      if (!moved || !moved.ok)
        return err('invalid-request', moved ? moved.error.message : 'no instruction queue here');
    }
    return ok(this.pending(session));
  }

  async withdraw(
    session: string,
    commandId: string,
    by: By,
  ): Promise<Result<PendingItem, PendingError>> {
    const before = this.item(session, commandId);
    const input = this.repo.get(session, commandId);
    if (input) {
      if (input.state !== 'queued')
        return err(
          'not-queued',
          `message ${commandId} is ${input.state}: it can no longer be withdrawn`,
        );
      const live = this.launched.get(session);
      if (!live?.controller.withdraw(commandId))
        return err('not-queued', `message ${commandId} is no longer queued`);
      this.audit(by, 'input.withdraw', session, commandId, 'ok');
      return ok(before);
    }
    const queue = this.deps.instructions();
    if (!queue) return err('not-found', `no message ${commandId} in session ${session}`);
    const withdrawn = await queue.withdraw(session, commandId, by);
    return withdrawn.ok
      ? ok(before)
      : err(
          withdrawn.error.code === 'not-found' ? 'not-found' : 'not-queued',
          withdrawn.error.message,
        );
  }

  close(): void {
    this.toggle.close();
  }

  private item(session: string, commandId: string): PendingItem {
    const found = this.pending(session).items.find((i) => i.commandId === commandId);
    if (found) return found;
    const r = this.repo.get(session, commandId);
    return {
      kind: r ? 'input' : 'instruction',
      commandId,
      session,
      position: -1,
      text: r?.text ?? '',
      delivery: r?.delivery ?? 'instruct',
      queuedAt: r?.queuedAt ?? new Date(this.deps.clock()).toISOString(),
      edits: r?.edits ?? 0,
    };
  }

  private audit(
    by: By,
    action: string,
    session: string,
    commandId: string | null,
    outcome: string,
  ): void {
    this.deps.audit({
      actor: by.actor,
      surface: by.surface,
      action,
      session,
      commandId,
      outcome,
      detail: null,
    });
  }
}
