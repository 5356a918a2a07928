/**
 * The control verbs of a Cline session, carried out through the hub, with the same ack discipline
 * as `instruct` (one decision per command, recorded with its audit row, a retry gets the recorded
 * ack byte for byte; ControlAcks):
 * - `x.cline.control.send_input { text, delivery }` → `session.send_input` (`now`/`steer` → steer,
 *   `queue` → queue; `queue` is refused on a plain `cline "prompt"` run, where the CLI drops it);
 *   its outcome (`x.cline.input.settled`) follows from the hub's pending-prompt events;
 * - `control.cancel { scope: "run" }` → `run.abort`; `run.cancelled` (by control) cause-linked;
 * - `control.attention.respond` on an approval card → `approval.respond` (first answer wins; the
 *   hub's `approval_not_found` is refused).
 */
import { MAX_INPUT_CHARS, sendInputType } from '../../../../../common/agents';
import type { Delivery } from '../../../../../common/agent-inputs';
import type { AepEvent } from '../../../../../common/aep/envelope';
import { decideOnce, type ControlAcks, type DecidedOutcome } from '../../../steering/control-acks';
import type { AuditSink, DurableLog } from '../../../steering/steering-types';
import type { VendorEmitter } from '../../../steering/vendor-emitter';
import { mapped } from '../../event-builders';
import type { MappingContext } from '../../types';
import type { HubReply } from './hub-client';
import type { HubTap } from './hub-tap';

/** The verbs a steerable Cline session declares. */
export const CLINE_VERBS: readonly string[] = [
  sendInputType('cline'),
  'control.cancel',
  'control.attention.respond',
];

export interface HubControlDeps {
  readonly emitter: VendorEmitter;
  readonly acks: ControlAcks;
  readonly audit: AuditSink;
  readonly durable: DurableLog;
  readonly tap: HubTap;
  readonly context: () => MappingContext;
  /** Why the session cannot be steered now (kill switch, not opted in, hub unreachable), or null. */
  readonly blocked: (session: string) => string | null;
  readonly request: (
    command: string,
    payload: Record<string, unknown>,
    sessionId?: string,
  ) => Promise<HubReply>;
}

type Outcome = DecidedOutcome;

const refused = (detail: string): Outcome => ({
  decision: { accepted: false, reason: 'refused', detail },
});
const invalid = (detail: string): Outcome => ({
  decision: { accepted: false, reason: 'invalid', detail },
});

/** Handles the commands routed to Cline sessions; anything else goes to `fallback`. */
export class HubControl {
  private readonly inFlight = new Set<string>();

  constructor(private readonly deps: HubControlDeps) {}

  /** The command handler for the cline emitter, in front of the default router. */
  route(fallback: (command: AepEvent) => Promise<void>): (command: AepEvent) => Promise<void> {
    return async (command) => {
      if (!CLINE_VERBS.includes(command.type)) return fallback(command);
      return decideOnce(this.deps, this.inFlight, command, (c) => this.decide(c));
    };
  }

  private async decide(command: AepEvent): Promise<Outcome> {
    const session = command.session;
    if (typeof session !== 'string' || session === '')
      return invalid('the command names no session');
    const blocked = this.deps.blocked(session);
    if (blocked !== null) return refused(blocked);
    if (command.type === 'control.cancel') return this.cancel(command, session);
    if (command.type === 'control.attention.respond') return this.respond(command, session);
    return this.sendInput(command, session);
  }

  private async sendInput(command: AepEvent, session: string): Promise<Outcome> {
    const text = command.data?.text;
    if (typeof text !== 'string' || text.trim() === '')
      return invalid('data.text must be a non-empty string');
    if (text.length > MAX_INPUT_CHARS)
      return invalid(`the input has ${text.length} characters; the limit is ${MAX_INPUT_CHARS}`);
    const asked = command.data?.delivery ?? 'now';
    if (asked !== 'now' && asked !== 'steer' && asked !== 'queue')
      return invalid(
        `delivery must be "steer" (or "now") or "queue", not ${JSON.stringify(asked)}`,
      );
    const delivery: Delivery = asked === 'queue' ? 'queue' : 'now';
    const hub = this.deps.tap.session(session);
    if (delivery === 'queue' && hub?.interactive !== true)
      return refused(
        'Cline drops queued input on a plain `cline "prompt"` run (only hub-native sessions run queued prompts): send it with delivery "steer" while the run is live',
      );
    // Listed before it is sent: the hub's pending list, and even its submission, can be read
    // before its reply is.
    const input = this.deps.tap.sending(session, command.id, text, delivery);
    let reply: HubReply;
    try {
      reply = await this.deps.request(
        'session.send_input',
        { sessionId: session, prompt: text, delivery: delivery === 'queue' ? 'queue' : 'steer' },
        session,
      );
    } catch (error) {
      this.deps.tap.withdraw(session, input);
      throw error;
    }
    if (!reply.ok) {
      this.deps.tap.withdraw(session, input);
      return refused(`the Cline hub refused session.send_input (${reply.code}: ${reply.message})`);
    }
    return {
      decision: { accepted: true },
      after: () => this.deps.tap.accepted(session, input),
      abandon: () => this.deps.tap.withdraw(session, input),
    };
  }

  private async cancel(command: AepEvent, session: string): Promise<Outcome> {
    const scope = command.data?.scope;
    if (scope !== 'run')
      return {
        decision: {
          accepted: false,
          reason: 'unsupported',
          detail: 'Cline sessions cancel only the running run (scope "run")',
        },
      };
    if (this.deps.emitter.mappingState(session).run === null)
      return refused('no run of this session is open');
    const reason =
      typeof command.data?.reason === 'string'
        ? command.data.reason
        : 'cancel requested by companion';
    const reply = await this.deps.request('run.abort', { sessionId: session, reason }, session);
    if (!reply.ok)
      return refused(`the Cline hub refused run.abort (${reply.code}: ${reply.message})`);
    if (reply.payload.applied !== true) return refused('the Cline hub had no run to abort');
    return {
      decision: { accepted: true },
      // The hub applied the abort: the run ends here, cause-linked to the command; the hook's
      // session_shutdown and the hub's run.aborted that follow find it closed.
      after: () => {
        // The tap sends it itself, after the ack (the emitter keeps the order of sends).
        this.deps.tap.runEnded(
          session,
          this.deps.tap.learn(session, null),
          'run.cancelled',
          command.id,
          'control',
        );
        return [];
      },
    };
  }

  private async respond(command: AepEvent, session: string): Promise<Outcome> {
    const s = this.deps.tap.session(session);
    const subject = command.subject;
    const entry = s
      ? [...s.approvals].find(([id, a]) => a.eventId === subject || id === subject)
      : undefined;
    if (!entry) return refused('approval_not_found: no open Cline approval has this subject');
    const [approvalId, approval] = entry;
    if (approval.settled) return refused('approval_not_found: this approval was already answered');
    const option = (command.data?.answer as { option?: unknown } | undefined)?.option;
    if (option !== 'allow' && option !== 'deny')
      return invalid('answer.option must be "allow" or "deny"');
    const reply = await this.deps.request(
      'approval.respond',
      { approvalId, approved: option === 'allow' },
      session,
    );
    if (!reply.ok) return refused(`${reply.code}: ${reply.message}`);
    approval.settled = true;
    return {
      decision: { accepted: true },
      after: () => {
        const run = this.deps.emitter.mappingState(session).run;
        const answered = mapped(
          'attention.answered',
          this.deps.context(),
          { answer: { option }, via: 'control' },
          {
            subject: approvalId,
            run,
            causeHint: { type: 'attention.requested', key: approvalId },
          },
        );
        return this.deps.emitter.stampMapped(session, [answered]);
      },
    };
  }

}
