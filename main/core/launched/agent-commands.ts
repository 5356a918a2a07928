/**
 * Commands to launched sessions, decided once each with the steering acks (recorded with the ack
 * event in one transaction; a retry gets the recorded ack byte-identically) and an audit row:
 * - `x.{agent}.control.send_input { text, delivery }` → the session's turn controller (refused
 *   while the steering kill switch is off); on a session the user's hooks see too, the hook path's
 *   `x.{agent}.control.instruct { text }` is the same input, queued (the hook never delivers it);
 * - `control.cancel` (AEP-0004 §5) → session/cancel / turn/interrupt; `run.cancelled` names the command;
 *   scope `run` also holds the session's queue (`x.{agent}.input.queue_paused`) until resumed or sent;
 * - `control.attention.respond { answer: { option } }` → the agent's permission request, with one
 *   of the option ids it offered;
 * anything else is refused `unsupported`.
 */
import type { AepEvent } from '../../../common/aep/envelope';
import { instructType, isVendorId } from '../../../common/vendors';
import { DELIVERIES, isDelivery } from '../../../common/agent-inputs';
import { MAX_INPUT_CHARS, sendInputType, type AgentId } from '../../../common/agents';
import type { AckDecision, ControlAcks } from '../steering/control-acks';
import { commandOrigin, instructText } from '../steering/instruct-command';
import type { AuditSink, DurableLog } from '../steering/steering-types';
import type { AgentEmitter } from './agent-emitter';
import type { LaunchedSession } from './launched-session';

/** What the router needs. */
export interface AgentCommandDeps {
  readonly acks: ControlAcks;
  readonly durable: DurableLog;
  readonly audit: AuditSink;
  readonly clock: () => number;
  readonly session: (id: string) => LaunchedSession | undefined;
  /** The kill switch (`features.steering`). */
  readonly steeringEnabled: () => boolean;
  /** Ends a session for `control.cancel { scope: "session" }` (audited by the host). */
  readonly end: (session: LaunchedSession, detail: string, cause: string) => Promise<void>;
}

/** The command handler of one agent's emitter. */
export function agentCommandRouter(agent: AgentId, emitter: AgentEmitter, deps: AgentCommandDeps): (command: AepEvent) => Promise<void> {
  return async (command) => {
    const origin = commandOrigin(command);
    const row = (action: string, outcome: string, detail: Record<string, unknown> | null) =>
      deps.audit({ actor: origin.actor, surface: origin.surface, action, session: command.session ?? null, commandId: command.id, outcome, detail });
    const recorded = deps.acks.recorded(command);
    if (recorded) {
      row(`${verbName(agent, command.type)}.retry`, 'replayed', null);
      await deps.acks.resend(emitter, recorded);
      return;
    }
    const session = command.session === undefined ? undefined : deps.session(command.session);
    const decide = (decision: AckDecision, audit: () => void): Promise<void> => {
      const { value, sent } = deps.durable.commit((keep) => {
        const ack = deps.acks.decide(emitter, command, decision, keep);
        if (ack) audit();
        return ack;
      });
      return value ? sent : Promise.resolve();
    };
    const reject = (reason: 'invalid' | 'refused' | 'unsupported' | 'busy', detail: string, action: string) =>
      decide({ accepted: false, reason, detail }, () => row(action, 'rejected', { reason, detail }));

    // The hook path's verb, on a session the launch host owns, is the same input (queued unless it says otherwise).
    if (command.type === sendInputType(agent) || (isVendorId(agent) && command.type === instructType(agent))) {
      if (!deps.steeringEnabled()) return reject('refused', 'steering is off (the kill switch): no input is accepted', 'input.rejected');
      if (!session || session.ended) return reject('invalid', `no live launched session ${command.session ?? ''}`, 'input.rejected');
      const text = instructText(command, MAX_INPUT_CHARS);
      if (!text.ok) return reject('invalid', text.error.message, 'input.rejected');
      const delivery = typeof command.data?.['delivery'] === 'string' ? (command.data['delivery'] as string) : 'queue';
      // now: steer the running turn where the session can (else it queues and says why); stop: cancel, then prompt.
      if (!isDelivery(delivery)) return reject('invalid', `delivery '${delivery}' must be one of ${DELIVERIES.join(', ')}`, 'input.rejected');
      await decide({ accepted: true }, () => row('input.accepted', 'ok', { delivery, generating: session.controller.generating }));
      const applied = session.controller.submit({ id: command.id, text: text.value, delivery, submittedAtMs: deps.clock(), actor: origin.actor, surface: origin.surface });
      row('input.submitted', 'ok', { decision: applied });
      return;
    }
    if (command.type === 'control.cancel') {
      const scope = command.data?.['scope'];
      if (!session || session.ended) return reject('invalid', `no live launched session ${command.session ?? ''}`, 'cancel.rejected');
      if (scope === 'session') {
        await decide({ accepted: true }, () => row('cancel.accepted', 'ok', { scope }));
        await deps.end(session, `cancelled by ${origin.actor}`, command.id);
        return;
      }
      if (!session.controller.generating) return reject('invalid', 'no turn is running', 'cancel.rejected');
      if (typeof command.run === 'string' && command.run !== session.currentRun) return reject('invalid', `run ${command.run} is not the running turn`, 'cancel.rejected');
      await decide({ accepted: true }, () => row('cancel.accepted', 'ok', { scope: 'run' }));
      // Stop holds the queue: nothing queued is sent until the operator resumes it or sends.
      session.controller.pause(command.id);
      await session.cancel(command.id).catch((error: unknown) => row('cancel.failed', 'error', { error: String(error) }));
      return;
    }
    if (command.type === 'control.attention.respond') {
      const requestId = typeof command.subject === 'string' ? command.subject : command.cause;
      const open = session?.openPermission(requestId);
      const answer = command.data?.['answer'] as Record<string, unknown> | undefined;
      const option = typeof answer?.['option'] === 'string' ? answer['option'] : undefined;
      if (!session || !open || requestId === undefined)
        return reject('invalid', 'no open attention request with that subject (already answered, timed out, or unknown)', 'permission.rejected');
      if (option === undefined || !open.ask.options.some((o) => o.optionId === option))
        return reject('invalid', `answer.option must be one of: ${open.ask.options.map((o) => o.optionId).join(', ')}`, 'permission.rejected');
      const sent = decide({ accepted: true }, () => row('permission.decision', 'ok', { request: requestId, option }));
      const events = session.answerPermission(requestId, option, command.id, origin.actor);
      // Queued at once, in stamp order: what the agent does next (stamped later) must not overtake the answer.
      const answered = events ? session.send(events) : Promise.resolve();
      await sent;
      await answered;
      return;
    }
    return reject('unsupported', `${command.type} is not accepted here`, 'control.rejected');
  };
}

const verbName = (agent: AgentId, type: string): string =>
  type === sendInputType(agent) || (isVendorId(agent) && type === instructType(agent)) ? 'input' : type === 'control.cancel' ? 'cancel' : type === 'control.attention.respond' ? 'permission' : 'control';
